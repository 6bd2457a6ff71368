import { Command } from 'commander';
import { commandOf, type Runner } from '../../command-kit.ts';
import { loadConfig } from '../../context.ts';
import type { CliDeps } from '../../deps.ts';
import {
  addTenantOption,
  addVaultOptions,
  vaultOptionsFrom,
  type RawOptions,
  type VaultCommandOptions,
} from '../../options.ts';
import { writeJson, writeRecord } from '../../output.ts';
import { resolveTenant, withServices } from '../../tenant-scope.ts';
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
