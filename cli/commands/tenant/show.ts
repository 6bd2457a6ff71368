import { Command } from 'commander';
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
import { writeRecord } from '../../output/table.ts';
import { writeJson } from '../../output/write.ts';
import { withServices } from '../../services/with-services.ts';
import { resolveTenant } from '../../tenancy/tenant-scope.ts';
import { ownerLabel } from './list.ts';

export interface TenantShowOptions extends VaultCommandOptions {
  readonly tenant: string | undefined;
}

export function newTenantShowCommand(
  deps: CliDeps,
  run: Runner<TenantShowOptions> = (o) => runTenantShow(deps, o),
): Command {
  const command = new Command('show').description('Show a tenant: name, owner, settings');
  addTenantOption(command, deps);
  addVaultOptions(command, deps);
  return command.action(async (...args: unknown[]) => {
    const raw = commandOf(args).opts<RawOptions & { tenant?: string }>();
    await run({ ...vaultOptionsFrom(raw), tenant: raw.tenant });
  });
}

export async function runTenantShow(deps: CliDeps, options: TenantShowOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  const { tenant, owner } = await withServices(deps, resolved, options.key, async (services) => {
    // Resolving reads the tenant already (one audited read); no second look is needed.
    const found = await resolveTenant(services, options.tenant);
    return { tenant: found, owner: await ownerLabel(services, found) };
  });
  if (options.json) {
    writeJson(deps.stdout, tenant);
    return;
  }
  const settings = Object.entries(tenant.settings);
  writeRecord(deps, [
    ['ID', tenant.id],
    ['Name', tenant.name],
    [
      'Owner',
      tenant.owner_id === null || owner === tenant.owner_id ? owner : `${owner} (${tenant.owner_id})`,
    ],
    ['Settings', settings.length === 0 ? '-' : settings.map(([k, v]) => `${k}=${v}`).join(', ')],
    ['Created', `${tenant.created_at}${tenant.created_by === null ? '' : ` by ${tenant.created_by}`}`],
    [
      'Modified',
      tenant.modified_at === null
        ? '-'
        : `${tenant.modified_at}${tenant.modified_by === null ? '' : ` by ${tenant.modified_by}`}`,
    ],
  ]);
}
