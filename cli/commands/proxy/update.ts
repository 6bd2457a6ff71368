import { Command } from 'commander';
import type { CliDeps } from '../../runtime/deps.ts';
import type { Runner } from '../../program/command-kit.ts';
import { loadConfig } from '../../runtime/config.ts';
import { withServices } from '../../services/with-services.ts';
import {
  PROXY_ID_HELP,
  findProxy,
  printProxy,
  proxyFieldsAction,
  proxyInputFrom,
  type ProxyFieldsOptions,
} from './common.ts';

export interface ProxyUpdateOptions extends ProxyFieldsOptions {
  readonly proxyId: string;
}

export function newProxyUpdateCommand(
  deps: CliDeps,
  run: Runner<ProxyUpdateOptions> = (o) => runProxyUpdate(deps, o),
): Command {
  const command = new Command('update')
    .description(
      'Change a proxy: the given flags replace those fields, the rest stays; the key never changes',
    )
    .argument('<proxy-id>', PROXY_ID_HELP);
  return proxyFieldsAction(command, deps, (options, args) => run({ ...options, proxyId: String(args[0]) }));
}

export async function runProxyUpdate(deps: CliDeps, options: ProxyUpdateOptions): Promise<void> {
  // Fail on unreadable transform files before unlocking the vault.
  await proxyInputFrom(options, null);
  const resolved = await loadConfig(deps, options.config);
  const updated = await withServices(deps, resolved, options.key, async (services) => {
    const { principal, proxy } = await findProxy(services, options.proxyId, options.tenant);
    return services.proxies.update(principal, proxy.id, await proxyInputFrom(options, proxy));
  });
  printProxy(deps, options, updated);
}
