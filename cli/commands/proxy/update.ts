import { Command } from 'commander';
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
import { writeRecord } from '../../output/table.ts';
import { writeJson } from '../../output/write.ts';
import { withServices } from '../../services/with-services.ts';
import {
  PROXY_ID_HELP,
  addProxyFieldOptions,
  findProxy,
  proxyEntries,
  proxyFieldsFrom,
  proxyInputFrom,
  type ProxyFieldOptions,
  type RawProxyFields,
} from './common.ts';

export interface ProxyUpdateOptions extends VaultCommandOptions, ProxyFieldOptions {
  readonly proxyId: string;
  readonly tenant: string | undefined;
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
  addProxyFieldOptions(command);
  addTenantOption(command, deps);
  addVaultOptions(command, deps);
  return command.action(async (...args: unknown[]) => {
    const raw = commandOf(args).opts<RawOptions & RawProxyFields & { tenant?: string }>();
    await run({
      ...vaultOptionsFrom(raw),
      ...proxyFieldsFrom(raw),
      proxyId: String(args[0]),
      tenant: raw.tenant,
    });
  });
}

export async function runProxyUpdate(deps: CliDeps, options: ProxyUpdateOptions): Promise<void> {
  // Fail on unreadable transform files before unlocking the vault.
  await proxyInputFrom(options, null);
  const resolved = await loadConfig(deps, options.config);
  const updated = await withServices(deps, resolved, options.key, async (services) => {
    const { principal, proxy } = await findProxy(services, options.proxyId, options.tenant);
    return services.proxies.update(principal, proxy.id, await proxyInputFrom(options, proxy));
  });
  if (options.json) writeJson(deps.stdout, updated);
  else writeRecord(deps, proxyEntries(updated));
}
