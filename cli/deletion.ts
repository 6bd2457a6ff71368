import { Command } from 'commander';
import { commandOf, type Runner } from './command-kit.ts';
import type { CliDeps } from './deps.ts';
import { addJsonOption, addTenantOption, addVaultOptions } from './options.ts';
import { writeJson, writeLine } from './output.ts';

/**
 * How every deleting command behaves: `-y, --yes` skips the question and is required off a
 * terminal; the question names what goes; `--json` prints `{id, tenant_id?, deleted: true}`.
 */

export function addYesOption(command: Command, verb = 'delete'): Command {
  return command.option('-y, --yes', `${verb} without asking (needed when not on a terminal)`);
}

/** Whether the action's command was given `--yes`. */
export function yesFrom(args: readonly unknown[]): boolean {
  return commandOf(args).opts<{ yes?: boolean }>().yes === true;
}

/** The report of a deletion: the record with `deleted: true` under --json, else `line`. */
export function reportDeleted(
  deps: CliDeps,
  json: boolean | undefined,
  record: { readonly id: string; readonly tenant_id?: string },
  line: string,
): void {
  if (json) writeJson(deps.stdout, { ...record, deleted: true });
  else writeLine(deps.stdout, line);
}

/**
 * `<noun> delete <id>` for a resource addressed by id within a tenant (application, proxy,
 * invitation): the tenant, vault and JSON options, `--yes`, and the id options read by `optionsFrom`.
 */
export function newByIdDeleteCommand<O>(
  deps: CliDeps,
  spec: {
    readonly description: string;
    readonly argument: string;
    readonly help: string;
    readonly optionsFrom: (args: readonly unknown[]) => O;
  },
  run: Runner<O & { readonly yes: boolean }>,
): Command {
  const command = addYesOption(
    new Command('delete').description(spec.description).argument(spec.argument, spec.help),
  );
  addTenantOption(command, deps);
  addVaultOptions(command, deps);
  addJsonOption(command);
  return command.action(async (...args: unknown[]) => {
    await run({ ...spec.optionsFrom(args), yes: yesFrom(args) });
  });
}
