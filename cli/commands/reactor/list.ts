import { Command } from 'commander';
import type { Runner } from '../../program/command-kit.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { wholeListJson } from '../../output/pages.ts';
import { writeTable } from '../../output/table.ts';
import { writeJson, writeLine } from '../../output/write.ts';
import { allPages } from '../../services/all-pages.ts';
import {
  addReactorScopeOptions,
  reactorScopeFrom,
  withReactors,
  type ReactorScopeOptions,
} from './common.ts';

export interface ReactorListOptions extends ReactorScopeOptions {
  readonly name: string | undefined;
}

export function newReactorListCommand(
  deps: CliDeps,
  run: Runner<ReactorListOptions> = (o) => runReactorList(deps, o),
): Command {
  const command = new Command('list')
    .description("List the tenant's reactors")
    .option('--name <pattern>', 'only names matching (* is a wildcard)');
  return addReactorScopeOptions(command, deps).action(async (...args: unknown[]) => {
    const { scope, raw } = reactorScopeFrom<{ name?: string }>(args);
    await run({ ...scope, name: raw.name });
  });
}

export async function runReactorList(deps: CliDeps, options: ReactorListOptions): Promise<void> {
  const reactors = await withReactors(deps, options, (services, principal) =>
    allPages((page) => services.reactors.list(principal, { name: options.name }, page)),
  );
  if (options.json) {
    writeJson(deps.stdout, wholeListJson(reactors));
    return;
  }
  if (reactors.length === 0) {
    writeLine(deps.stderr, "No reactors (create one with 'svc reactor create').");
    return;
  }
  writeTable(
    deps,
    ['ID', 'NAME', 'FORMULA', 'APPLICATION'],
    reactors.map((x) => [x.id, x.name, x.formula.name, x.application?.name ?? '']),
  );
}
