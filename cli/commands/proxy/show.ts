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
import { withServices } from '../../services/with-services.ts';
import { PROXY_ID_HELP, findProxy, printProxy } from './common.ts';

export interface ProxyIdOptions extends VaultCommandOptions {
  readonly proxyId: string;
  readonly tenant: string | undefined;
}

export function proxyIdOptionsFrom(args: readonly unknown[]): ProxyIdOptions {
  const raw = commandOf(args).opts<RawOptions & { tenant?: string }>();
  return { ...vaultOptionsFrom(raw), proxyId: String(args[0]), tenant: raw.tenant };
}

export function newProxyShowCommand(
  deps: CliDeps,
  run: Runner<ProxyIdOptions> = (o) => runProxyShow(deps, o),
): Command {
  const command = new Command('show').description('Show a proxy').argument('<proxy-id>', PROXY_ID_HELP);
  addTenantOption(command, deps);
  addVaultOptions(command, deps);
  return command.action(async (...args: unknown[]) => run(proxyIdOptionsFrom(args)));
}

export async function runProxyShow(deps: CliDeps, options: ProxyIdOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  const { proxy } = await withServices(deps, resolved, options.key, (services) =>
    findProxy(services, options.proxyId, options.tenant),
  );
  printProxy(deps, options, proxy);
}
