import type { Command } from 'commander';
import { confirmOrCancel, requireYes } from '../../ask.ts';
import type { CliDeps } from '../../deps.ts';
import type { Runner } from '../../command-kit.ts';
import { newByIdDeleteCommand, reportDeleted } from '../../deletion.ts';
import { loadConfig } from '../../context.ts';
import { withServices } from '../../tenant-scope.ts';
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
      description: 'Delete a proxy; its key stops working at once',
      argument: '<proxy-id>',
      help: PROXY_ID_HELP,
      optionsFrom: proxyIdOptionsFrom,
    },
    run,
  );
}

export async function runProxyDelete(deps: CliDeps, options: ProxyDeleteOptions): Promise<void> {
  requireYes(deps, options.yes, 'deleting a proxy');
  const resolved = await loadConfig(deps, options.config);
  const deleted = await withServices(deps, resolved, options.key, async (services) => {
    const { principal, proxy } = await findProxy(services, options.proxyId, options.tenant);
    await confirmOrCancel(
      deps,
      options.yes,
      `Delete proxy ${proxy.name} (${proxy.id})? Its key stops working.`,
      'the proxy was left as it is',
    );
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
