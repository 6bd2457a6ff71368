import type { Command } from 'commander';
import { configFlagsFrom } from '../options/config-flags.ts';
import { loadConfig } from '../runtime/config.ts';
import type { CliDeps } from '../runtime/deps.ts';

/**
 * Fills a command's `--tenant` from the `tenant` setting when the flag is absent, so every command
 * that acts in a tenant follows one precedence: the flag, then SVC_TENANT, then the config file's
 * `tenant`, then the vault's only tenant (cli/tenancy/tenant-scope.ts). Runs as commander's preAction hook.
 */
export async function applyDefaultTenant(command: Command, deps: CliDeps): Promise<void> {
  if (!command.options.some((option) => option.attributeName() === 'tenant')) return;
  if (command.getOptionValue('tenant') !== undefined) return;
  const resolved = await loadConfig(deps, configFlagsFrom(command.opts()));
  const tenant = resolved.config.tenant;
  if (tenant === null) return;
  command.setOptionValueWithSource('tenant', tenant, resolved.sources.tenant === 'env' ? 'env' : 'config');
}
