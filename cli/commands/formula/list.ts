import { Command } from 'commander';
import type { Runner } from '../../program/command-kit.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { wholeListJson } from '../../output/pages.ts';
import { writeTable } from '../../output/table.ts';
import { writeJson } from '../../output/write.ts';
import { allPages } from '../../services/all-pages.ts';
import {
  addReactorScopeOptions,
  reactorScopeFrom,
  withReactors,
  type ReactorScopeOptions,
} from '../reactor/common.ts';

export interface FormulaListOptions extends ReactorScopeOptions {
  readonly name: string | undefined;
}

export function newFormulaListCommand(
  deps: CliDeps,
  run: Runner<FormulaListOptions> = (o) => runFormulaList(deps, o),
): Command {
  const command = new Command('list')
    .description('List the official formulas and the tenant private ones')
    .option('--name <pattern>', 'only names matching (* is a wildcard)');
  return addReactorScopeOptions(command, deps).action(async (...args: unknown[]) => {
    const { scope, raw } = reactorScopeFrom<{ name?: string }>(args);
    await run({ ...scope, name: raw.name });
  });
}

export async function runFormulaList(deps: CliDeps, options: FormulaListOptions): Promise<void> {
  const formulas = await withReactors(deps, options, (services, principal) =>
    allPages((page) => services.reactors.listFormulas(principal, { name: options.name }, page)),
  );
  if (options.json) {
    writeJson(deps.stdout, wholeListJson(formulas));
    return;
  }
  writeTable(
    deps,
    ['ID', 'NAME', 'TYPE', 'STATUS'],
    formulas.map((f) => [f.id, f.name, f.type, f.status]),
  );
}
