import { Command } from 'commander';
import type { ChainReport } from '../../../core/audit/audit-log.ts';
import { VaultError } from '../../../core/errors/catalogue.ts';
import { commandOf, type Runner } from '../../program/command-kit.ts';
import { loadConfig } from '../../runtime/config.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { EXIT, QuietExit } from '../../runtime/errors.ts';
import {
  addVaultOptions,
  vaultOptionsFrom,
  type RawOptions,
  type VaultCommandOptions,
} from '../../options/config-flags.ts';
import { snakeCaseKeys, writeJson, writeLine } from '../../output/write.ts';
import { withServices } from '../../services/with-services.ts';
import { resolveTenantOrId } from '../../tenancy/tenant-scope.ts';

export interface LogsVerifyOptions extends VaultCommandOptions {
  /** Only this tenant's chain (also a deleted tenant's, whose deletion record remains). */
  readonly tenant: string | undefined;
}

export function newLogsVerifyCommand(
  deps: CliDeps,
  run: Runner<LogsVerifyOptions> = (o) => runLogsVerify(deps, o),
): Command {
  const command = new Command('verify')
    .description(
      "Check the audit log's hash chains: exit 0 when every entry is intact, 1 naming the first altered, removed or reordered one",
    )
    .option('--tenant <id-or-name>', "only this tenant's chain (default: every tenant)");
  addVaultOptions(command, deps);
  return command.action(async (...args: unknown[]) => {
    const raw = commandOf(args).opts<RawOptions & { tenant?: string }>();
    await run({ ...vaultOptionsFrom(raw), tenant: raw.tenant });
  });
}

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

export function describeReport(report: ChainReport): string {
  const broken = report.firstBreak;
  if (broken === null) {
    return `ok: ${plural(report.entries, 'entry', 'entries')} in ${plural(report.tenants, 'tenant', 'tenants')} verified`;
  }
  const entry = broken.entryId === null ? `#${broken.seq}` : `#${broken.seq} (${broken.entryId})`;
  return `broken: tenant ${broken.tenantId}, entry ${entry}: ${broken.reason}`;
}

export async function runLogsVerify(deps: CliDeps, options: LogsVerifyOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  const report = await withServices(deps, resolved, options.key, async (services) =>
    services.logs.verify(
      options.tenant === undefined ? undefined : (await resolveTenantOrId(services, options.tenant)).id,
    ),
  );
  // A mistyped id would otherwise "verify" nothing and pass.
  if (options.tenant !== undefined && report.tenants === 0) {
    throw new VaultError('NOT_FOUND', `no audit log for tenant ${options.tenant} in this vault`);
  }
  if (options.json) writeJson(deps.stdout, snakeCaseKeys(report));
  else writeLine(deps.stdout, describeReport(report));
  // The report is the output; the exit code tells a script whether the chains hold.
  if (!report.ok) throw new QuietExit(EXIT.error);
}
