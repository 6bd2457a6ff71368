import { Command } from 'commander';
import type { Tenant } from '../../../core/services-contract.ts';
import type { CliServices } from '../../services/contract.ts';
import { commandOf, type Runner } from '../../program/command-kit.ts';
import { loadConfig } from '../../runtime/config.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import {
  addVaultOptions,
  vaultOptionsFrom,
  type RawOptions,
  type VaultCommandOptions,
} from '../../options/config-flags.ts';
import { wholeListJson } from '../../output/pages.ts';
import { writeTable } from '../../output/table.ts';
import { writeJson, writeLine } from '../../output/write.ts';
import { withServices } from '../../services/with-services.ts';
import { runnable } from '../../output/runnable.ts';

export type TenantListOptions = VaultCommandOptions;

export function newTenantListCommand(
  deps: CliDeps,
  run: Runner<TenantListOptions> = (o) => runTenantList(deps, o),
): Command {
  const command = new Command('list').description('List the tenants in the vault');
  addVaultOptions(command, deps);
  return command.action(async (...args: unknown[]) => {
    await run(vaultOptionsFrom(commandOf(args).opts<RawOptions>()));
  });
}

/** The owner as a person reads it: their e-mail (the id when the user is gone), or "-". */
export async function ownerLabel(services: CliServices, tenant: Tenant): Promise<string> {
  if (tenant.owner_id === null) return '-';
  const user = await services.users.get(tenant.owner_id);
  return user?.email ?? tenant.owner_id;
}

export async function runTenantList(deps: CliDeps, options: TenantListOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  const rows = await withServices(deps, resolved, options.key, async (services) => {
    const tenants = await services.tenants.listAll();
    if (options.json) return { tenants, owners: [] };
    return { tenants, owners: await Promise.all(tenants.map((t) => ownerLabel(services, t))) };
  });
  if (options.json) {
    writeJson(deps.stdout, wholeListJson(rows.tenants));
    return;
  }
  if (rows.tenants.length === 0) {
    writeLine(
      deps.stderr,
      runnable(deps.env, "No tenants yet ('svc tenant create' or 'svc start' creates one)."),
    );
    return;
  }
  writeTable(
    deps,
    ['ID', 'Name', 'Owner', 'Created'],
    rows.tenants.map((t, i) => [t.id, t.name, rows.owners[i] ?? '-', t.created_at]),
  );
}
