import { Command } from 'commander';
import type { CliDeps } from '../../runtime/deps.ts';
import { requireUnlessTTY, valueOrPrompt } from '../../prompts/ask.ts';
import type { Runner } from '../../program/command-kit.ts';
import { loadConfig } from '../../runtime/config.ts';
import { withServices } from '../../services/with-services.ts';
import { operatorIn, resolveTenant } from '../../tenancy/tenant-scope.ts';
import { printProxy, proxyFieldsAction, proxyInputFrom, type ProxyFieldsOptions } from './common.ts';

export type ProxyCreateOptions = ProxyFieldsOptions;

export function newProxyCreateCommand(
  deps: CliDeps,
  run: Runner<ProxyCreateOptions> = (o) => runProxyCreate(deps, o),
): Command {
  return proxyFieldsAction(
    new Command('create').description('Create a proxy; the vault generates its key'),
    deps,
    (options) => run(options),
  );
}

export async function runProxyCreate(deps: CliDeps, options: ProxyCreateOptions): Promise<void> {
  requireUnlessTTY(deps, { '--name': options.name, '--destination-url': options.destinationUrl });
  // Transform files are read (and a bad one refused) before the vault is unlocked.
  const input = await proxyInputFrom(options, null);
  const resolved = await loadConfig(deps, options.config);
  const created = await withServices(deps, resolved, options.key, async (services) => {
    const tenant = await resolveTenant(services, options.tenant);
    const name = await valueOrPrompt(deps, options.name, '--name', 'Proxy name:');
    const destination = await valueOrPrompt(
      deps,
      options.destinationUrl,
      '--destination-url',
      'Destination URL:',
    );
    return services.proxies.create(operatorIn(tenant.id), { ...input, name, destination_url: destination });
  });
  printProxy(deps, options, created);
}
