import { Command } from 'commander';
import type { CliDeps } from '../../runtime/deps.ts';
import { requireUnlessTTY, valueOrPrompt } from '../../prompts/ask.ts';
import { commandOf, type Runner } from '../../program/command-kit.ts';
import { loadConfig } from '../../runtime/config.ts';
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
import { operatorIn, resolveTenant } from '../../tenancy/tenant-scope.ts';
import {
  addProxyFieldOptions,
  proxyEntries,
  proxyFieldsFrom,
  proxyInputFrom,
  type ProxyFieldOptions,
  type RawProxyFields,
} from './common.ts';

export interface ProxyCreateOptions extends VaultCommandOptions, ProxyFieldOptions {
  readonly tenant: string | undefined;
}

export function newProxyCreateCommand(
  deps: CliDeps,
  run: Runner<ProxyCreateOptions> = (o) => runProxyCreate(deps, o),
): Command {
  const command = new Command('create').description('Create a proxy; the vault generates its key');
  addProxyFieldOptions(command);
  addTenantOption(command, deps);
  addVaultOptions(command, deps);
  return command.action(async (...args: unknown[]) => {
    const raw = commandOf(args).opts<RawOptions & RawProxyFields & { tenant?: string }>();
    await run({ ...vaultOptionsFrom(raw), ...proxyFieldsFrom(raw), tenant: raw.tenant });
  });
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
  if (options.json) writeJson(deps.stdout, created);
  else writeRecord(deps, proxyEntries(created));
}
