import { Command } from 'commander';
import type { Runner } from '../../program/command-kit.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import {
  addReactorScopeOptions,
  reactorScopeFrom,
  withReactors,
  type ReactorScopeOptions,
} from '../reactor/common.ts';
import { FORMULA_ID_HELP, printFormula } from './common.ts';

export interface FormulaIdOptions extends ReactorScopeOptions {
  readonly formulaId: string;
}

export function formulaIdOptionsFrom(args: readonly unknown[]): FormulaIdOptions {
  return { ...reactorScopeFrom(args).scope, formulaId: String(args[0]) };
}

export function newFormulaShowCommand(
  deps: CliDeps,
  run: Runner<FormulaIdOptions> = (o) => runFormulaShow(deps, o),
): Command {
  const command = new Command('show').description('Show a formula').argument('<formula-id>', FORMULA_ID_HELP);
  return addReactorScopeOptions(command, deps).action(async (...args: unknown[]) =>
    run(formulaIdOptionsFrom(args)),
  );
}

export async function runFormulaShow(deps: CliDeps, options: FormulaIdOptions): Promise<void> {
  const formula = await withReactors(deps, options, (services, principal) =>
    services.reactors.getFormula(principal, options.formulaId),
  );
  printFormula(deps, options, formula);
}
