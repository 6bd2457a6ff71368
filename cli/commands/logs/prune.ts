import { Command, InvalidArgumentError } from 'commander';
import { pruneReadEntries, type PruneResult } from '../../../core/audit/retention.ts';
import { commandOf, type Runner } from '../../program/command-kit.ts';
import { requireNoServer } from '../../connection/connection.ts';
import { markDestructive } from '../../program/confirmation.ts';
import { loadConfig } from '../../runtime/config.ts';
import { localCliServices } from '../../services/local.ts';
import { withVaultServices } from '../../services/with-services.ts';
import { resolveTenantOrId } from '../../tenancy/tenant-scope.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import {
  addVaultOptions,
  vaultOptionsFrom,
  type RawOptions,
  type VaultCommandOptions,
} from '../../options/config-flags.ts';
import { writeJson, writeLine } from '../../output/write.ts';

export interface LogsPruneOptions extends VaultCommandOptions {
  /** Read entries older than this many days go. */
  readonly olderThanDays: number;
  readonly tenant: string | undefined;
}

const DAY_MS = 24 * 60 * 60 * 1000;

function parseDays(text: string): number {
  const days = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(days) || days < 1 || days > 36_500)
    throw new InvalidArgumentError('Expected a whole number of days from 1 to 36500.');
  return days;
}

export function newLogsPruneCommand(
  deps: CliDeps,
  run: Runner<LogsPruneOptions> = (o) => runLogsPrune(deps, o),
): Command {
  const command = new Command('prune')
    .description(
      'Remove audit entries of reads older than N days, leaving a checkpoint per run of them so `svc logs verify` still verifies the chain (creates, updates and deletes are kept)',
    )
    .requiredOption('--older-than <days>', 'remove read entries older than this many days', parseDays)
    .option('--tenant <id-or-name>', "only this tenant's log (default: every tenant)");
  markDestructive(command, 'pruning the audit log', { verb: 'prune' });
  addVaultOptions(command, deps);
  return command.action(async (...args: unknown[]) => {
    const raw = commandOf(args).opts<RawOptions & { tenant?: string; olderThan: number }>();
    await run({ ...vaultOptionsFrom(raw), tenant: raw.tenant, olderThanDays: raw.olderThan });
  });
}

export function describePrune(result: PruneResult): string {
  return `removed ${result.entries} read ${result.entries === 1 ? 'entry' : 'entries'}; ${result.checkpoints} checkpoint${result.checkpoints === 1 ? '' : 's'} written`;
}

export async function runLogsPrune(deps: CliDeps, options: LogsPruneOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  // The server prunes by itself (--audit-read-retention-days); a one-off prune needs it stopped.
  await requireNoServer(resolved, 'Pruning the audit log');
  const result = await withVaultServices(deps, resolved, options.key, async (services) => {
    const { vault } = services;
    const tenantId =
      options.tenant === undefined
        ? undefined
        : (await resolveTenantOrId(localCliServices(services), options.tenant)).id;
    return pruneReadEntries(
      vault,
      new Date(vault.clock.now().getTime() - options.olderThanDays * DAY_MS),
      tenantId,
    );
  });
  if (options.json) writeJson(deps.stdout, result);
  else writeLine(deps.stdout, describePrune(result));
}
