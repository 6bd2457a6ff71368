import { Command } from 'commander';
import type { UsageReport } from '../../../core/tenancy/contract.ts';
import { commandOf, type Runner } from '../../program/command-kit.ts';
import { loadConfig } from '../../runtime/config.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import {
  addVaultOptions,
  vaultOptionsFrom,
  type RawOptions,
  type VaultCommandOptions,
} from '../../options/config-flags.ts';
import { addTenantOption } from '../../options/tenant.ts';
import { writeTable } from '../../output/table.ts';
import { writeJson, writeLine } from '../../output/write.ts';
import { withServices } from '../../services/with-services.ts';
import { operatorIn, resolveTenant } from '../../tenancy/tenant-scope.ts';

export interface TenantUsageOptions extends VaultCommandOptions {
  readonly tenant: string | undefined;
}

export function newTenantUsageCommand(
  deps: CliDeps,
  run: Runner<TenantUsageOptions> = (o) => runTenantUsage(deps, o),
): Command {
  const command = new Command('usage')
    .description('Show the usage report: tokens by type, monthly active tokens and their history')
    .addHelpText(
      'after',
      '\nA token is active in a calendar month (UTC) once it was created, read or used in it; each token counts once.',
    );
  addTenantOption(command, deps);
  addVaultOptions(command, deps);
  return command.action(async (...args: unknown[]) => {
    const raw = commandOf(args).opts<RawOptions & { tenant?: string }>();
    await run({ ...vaultOptionsFrom(raw), tenant: raw.tenant });
  });
}

function monthLabel(year: number, month: number): string {
  return `${year}-${String(month).padStart(2, '0')}`;
}

/** Three parts, each readable alone: tokens by type, this month against the plan, the history. */
export function writeUsage(deps: CliDeps, report: UsageReport): void {
  const { token_report: tokens } = report;
  const types = Object.entries(tokens.metrics_by_type).sort(([a], [b]) => a.localeCompare(b));
  if (types.length === 0) writeLine(deps.stdout, 'Tokens by type: none');
  else {
    writeLine(deps.stdout, 'Tokens by type:');
    writeTable(
      deps,
      ['Type', 'Count', 'Last created'],
      types.map(([type, metric]) => [type, String(metric.count), metric.last_created_at ?? '-']),
    );
  }
  writeLine(
    deps.stdout,
    `Monthly active tokens: ${tokens.monthly_active_tokens} of ${tokens.included_monthly_active_tokens} included`,
  );
  const history = [...tokens.monthly_active_token_history].sort(
    (a, b) => b.year - a.year || b.month - a.month,
  );
  if (history.length === 0) return;
  writeLine(deps.stdout, 'History:');
  writeTable(
    deps,
    ['Month', 'Active tokens'],
    history.map((h) => [monthLabel(h.year, h.month), String(h.count)]),
  );
}

export async function runTenantUsage(deps: CliDeps, options: TenantUsageOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  const report = await withServices(deps, resolved, options.key, async (services) => {
    const tenant = await resolveTenant(services, options.tenant);
    return services.usage.report(operatorIn(tenant.id));
  });
  if (options.json) writeJson(deps.stdout, report);
  else writeUsage(deps, report);
}
