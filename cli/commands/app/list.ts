import { MAX_APPLICATION_PAGE_SIZE } from '../../../core/tenancy/applications.ts';
import { Command } from 'commander';
import type { Principal } from '../../../core/access/principal.ts';
import { APPLICATION_TYPES, type ApplicationType } from '../../../core/access/permissions.ts';
import type { Application } from '../../../core/services-contract.ts';
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
import { addTenantOption } from '../../options/tenant.ts';
import { choiceOption } from '../../options/values.ts';
import { wholeListJson } from '../../output/pages.ts';
import { writeTable } from '../../output/table.ts';
import { writeJson, writeLine } from '../../output/write.ts';
import { withServices } from '../../services/with-services.ts';
import { operatorIn, resolveTenant } from '../../tenancy/tenant-scope.ts';
import { APPLICATION_COLUMNS, applicationRow } from './format.ts';
import { runnable } from '../../output/runnable.ts';

export interface AppListOptions extends VaultCommandOptions {
  readonly tenant: string | undefined;
  readonly type: ApplicationType | undefined;
}

export function newAppListCommand(
  deps: CliDeps,
  run: Runner<AppListOptions> = (o) => runAppList(deps, o),
): Command {
  const command = new Command('list')
    .description("List a tenant's applications")
    .addOption(choiceOption('--type <type>', 'only applications of this type', APPLICATION_TYPES));
  addTenantOption(command, deps);
  addVaultOptions(command, deps);
  return command.action(async (...args: unknown[]) => {
    const raw = commandOf(args).opts<RawOptions & { tenant?: string; type?: ApplicationType }>();
    await run({ ...vaultOptionsFrom(raw), tenant: raw.tenant, type: raw.type });
  });
}

/** Every application matching the filter, page by page. */
async function listAll(
  services: CliServices,
  principal: Principal,
  type: ApplicationType | undefined,
): Promise<Application[]> {
  const filter = type === undefined ? {} : { types: [type] };
  const items: Application[] = [];
  for (let page = 1; ; page++) {
    const result = await services.applications.list(principal, filter, {
      page,
      size: MAX_APPLICATION_PAGE_SIZE,
    });
    items.push(...result.items);
    if (result.items.length < MAX_APPLICATION_PAGE_SIZE || items.length >= result.total) return items;
  }
}

export async function runAppList(deps: CliDeps, options: AppListOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  const apps = await withServices(deps, resolved, options.key, async (services) => {
    const tenant = await resolveTenant(services, options.tenant);
    return listAll(services, operatorIn(tenant.id), options.type);
  });
  if (options.json) {
    writeJson(deps.stdout, wholeListJson(apps));
    return;
  }
  if (apps.length === 0) {
    writeLine(deps.stderr, runnable(deps.env, "No applications (create one with 'svc app create')."));
    return;
  }
  writeTable(deps, APPLICATION_COLUMNS, apps.map(applicationRow));
}
