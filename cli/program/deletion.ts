import { Command } from 'commander';
import type { Runner } from './command-kit.ts';
import { markDestructive, yesFrom } from './confirmation.ts';
import type { CliDeps } from '../runtime/deps.ts';
import { addVaultOptions } from '../options/config-flags.ts';
import { addTenantOption } from '../options/tenant.ts';
import { writeJson, writeLine } from '../output/write.ts';

/**
 * How every deleting command reports: `--json` prints `{id, tenant_id?, deleted: true}`. Asking
 * first is the rule of every destructive verb (cli/program/confirmation.ts).
 */

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
 * invitation): the tenant and vault options, `--yes`, and the id options read by `optionsFrom`.
 */
export function newByIdDeleteCommand<O>(
  deps: CliDeps,
  spec: {
    /** Completes "… needs confirmation", e.g. "deleting a proxy". */
    readonly action: string;
    readonly description: string;
    readonly argument: string;
    readonly help: string;
    readonly optionsFrom: (args: readonly unknown[]) => O;
  },
  run: Runner<O & { readonly yes: boolean }>,
): Command {
  const command = markDestructive(
    new Command('delete').description(spec.description).argument(spec.argument, spec.help),
    spec.action,
    { verb: 'delete' },
  );
  addTenantOption(command, deps);
  addVaultOptions(command, deps);
  return command.action(async (...args: unknown[]) => {
    await run({ ...spec.optionsFrom(args), yes: yesFrom(args) });
  });
}
