import { Command } from 'commander';
import { confirmOrCancel, requireYes } from '../../ask.ts';
import type { CliDeps } from '../../deps.ts';
import { commandOf, type Runner } from '../../command-kit.ts';
import { loadConfig } from '../../context.ts';
import { addJsonOption, addTenantOption, addVaultOptions } from '../../options.ts';
import { writeJson, writeLine } from '../../output.ts';
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
  const command = new Command('delete')
    .description('Delete a proxy; its key stops working at once')
    .argument('<proxy-id>', PROXY_ID_HELP)
    .option('-y, --yes', 'delete without asking (needed when not on a terminal)');
  addTenantOption(command, deps);
  addVaultOptions(command, deps);
  addJsonOption(command);
  return command.action(async (...args: unknown[]) => {
    const raw = commandOf(args).opts<{ yes?: boolean }>();
    await run({ ...proxyIdOptionsFrom(args), yes: raw.yes === true });
  });
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
  if (options.json) writeJson(deps.stdout, { id: deleted.id, tenant_id: deleted.tenant_id, deleted: true });
  else writeLine(deps.stdout, `Deleted proxy ${deleted.id} (${deleted.name})`);
}
