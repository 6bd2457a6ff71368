import type { KeySourceFlags, ResolvedConfig } from '../../core/config/index.ts';
import type { Services } from '../../core/services-contract.ts';
import { clientOf, connectionFor } from '../connection/connection.ts';
import { withVault } from '../local-vault/open.ts';
import type { CliKeyFlags } from '../options/config-flags.ts';
import type { CliDeps } from '../runtime/deps.ts';
import type { CliServices } from './contract.ts';
import { httpCliServices } from './http/index.ts';
import { localCliServices } from './local.ts';
import { tenancyOptionsFrom } from './tenancy-options.ts';

/**
 * Opens the vault in this process, builds every domain service over it (with invitation mail
 * configured from the environment, cli/services/tenancy-options.ts), runs `fn`, and always closes the vault.
 * For the commands that act on the open vault itself; while a server holds it they stop with the
 * lock error, which names the server to stop.
 */
export function withVaultServices<T>(
  deps: CliDeps,
  resolved: ResolvedConfig,
  flags: KeySourceFlags,
  fn: (services: Services) => Promise<T>,
): Promise<T> {
  const tenancy = tenancyOptionsFrom(resolved.config);
  return withVault(deps, resolved, flags, async (vault) => fn(await deps.services(vault, { tenancy })));
}

/**
 * Runs `fn` with the command services wherever the vault is (cli/connection/connection.ts): through the server
 * that holds it or the one named by --server, else over the vault opened in this process (and
 * always closed after).
 */
export async function withServices<T>(
  deps: CliDeps,
  resolved: ResolvedConfig,
  flags: CliKeyFlags,
  fn: (services: CliServices) => Promise<T>,
): Promise<T> {
  const connection = await connectionFor(deps, resolved, flags.apiKey);
  if (connection.kind !== 'in-process')
    return fn(httpCliServices(clientOf(connection), connection.authority));
  return withVaultServices(deps, resolved, flags, async (services) => {
    try {
      return await fn(localCliServices(services));
    } finally {
      // The reactor sandbox's worker threads stop before the vault closes.
      await services.reactors.close();
    }
  });
}
