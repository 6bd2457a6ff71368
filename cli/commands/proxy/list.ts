import { MAX_PROXY_PAGE_SIZE } from '../../../core/proxies/proxy-service.ts';
import { Command } from 'commander';
import type { Proxy } from '../../../core/proxies/index.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { commandOf, type Runner } from '../../program/command-kit.ts';
import { loadConfig } from '../../runtime/config.ts';
import {
  addVaultOptions,
  vaultOptionsFrom,
  type RawOptions,
  type VaultCommandOptions,
} from '../../options/config-flags.ts';
import { addTenantOption } from '../../options/tenant.ts';
import { wholeListJson } from '../../output/pages.ts';
import { writeTable } from '../../output/table.ts';
import { writeJson } from '../../output/write.ts';
import { withServices } from '../../services/with-services.ts';
import { operatorIn, resolveTenant } from '../../tenancy/tenant-scope.ts';

export interface ProxyListOptions extends VaultCommandOptions {
  readonly tenant: string | undefined;
  readonly name: string | undefined;
}

export function newProxyListCommand(
  deps: CliDeps,
  run: Runner<ProxyListOptions> = (o) => runProxyList(deps, o),
): Command {
  const command = new Command('list')
    .description('List the proxies of a tenant')
    .option('--name <pattern>', 'only names containing this text, or matching it with * wildcards');
  addTenantOption(command, deps);
  addVaultOptions(command, deps);
  return command.action(async (...args: unknown[]) => {
    const raw = commandOf(args).opts<RawOptions & { tenant?: string; name?: string }>();
    await run({ ...vaultOptionsFrom(raw), tenant: raw.tenant, name: raw.name });
  });
}

export async function runProxyList(deps: CliDeps, options: ProxyListOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  const proxies = await withServices(deps, resolved, options.key, async (services) => {
    const tenant = await resolveTenant(services, options.tenant);
    const all: Proxy[] = [];
    for (let page = 1; ; page++) {
      const result = await services.proxies.list(
        operatorIn(tenant.id),
        { name: options.name },
        { page, size: MAX_PROXY_PAGE_SIZE },
      );
      all.push(...result.items);
      if (all.length >= result.total || result.items.length === 0) return all;
    }
  });
  if (options.json) {
    writeJson(deps.stdout, wholeListJson(proxies));
    return;
  }
  writeTable(
    deps,
    ['ID', 'NAME', 'DESTINATION', 'AUTH', 'KEY'],
    proxies.map((p) => [p.id, p.name, p.destination_url, p.require_auth ? 'required' : 'none', p.key]),
  );
}
