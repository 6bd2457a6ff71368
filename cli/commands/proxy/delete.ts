import type { Command } from 'commander';
import { confirmDestructive } from '../../program/confirmation.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import type { Runner } from '../../program/command-kit.ts';
import { newByIdDeleteCommand, reportDeleted } from '../../program/deletion.ts';
import { loadConfig } from '../../runtime/config.ts';
import { withServices } from '../../services/with-services.ts';
import { PROXY_ID_HELP, findProxy } from './common.ts';
import { proxyIdOptionsFrom, type ProxyIdOptions } from './show.ts';

export interface ProxyDeleteOptions extends ProxyIdOptions {
  readonly yes: boolean;
}

export function newProxyDeleteCommand(
  deps: CliDeps,
  run: Runner<ProxyDeleteOptions> = (o) => runProxyDelete(deps, o),
): Command {
  return newByIdDeleteCommand(
    deps,
    {
      action: 'deleting a proxy',
      description: 'Delete a proxy; its key stops working at once',
      argument: '<proxy-id>',
      help: PROXY_ID_HELP,
      optionsFrom: proxyIdOptionsFrom,
    },
    run,
  );
}

export async function runProxyDelete(deps: CliDeps, options: ProxyDeleteOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  const deleted = await withServices(deps, resolved, options.key, async (services) => {
    const { principal, proxy } = await findProxy(services, options.proxyId, options.tenant);
    await confirmDestructive(deps, options.yes, {
      question: `Delete proxy ${proxy.name} (${proxy.id})? Its key stops working.`,
      unchanged: 'the proxy was left as it is',
    });
    await services.proxies.delete(principal, proxy.id);
    return proxy;
  });
  reportDeleted(
    deps,
    options.json,
    { id: deleted.id, tenant_id: deleted.tenant_id },
    `Deleted proxy ${deleted.id} (${deleted.name})`,
  );
}
