import { Option, type Command } from 'commander';
import { ENV_NAMES } from '../../core/config/index.ts';
import type { CliDeps } from '../runtime/deps.ts';
import { completesWith } from './completion-values.ts';

export const TENANT_ENV = ENV_NAMES.tenant;

/**
 * `--tenant <id-or-name>`. Without it the `tenant` setting applies (SVC_TENANT, else the config
 * file's `tenant`), filled in before the action runs (applyDefaultTenant, cli/tenancy/default-tenant.ts).
 */
export function addTenantOption(command: Command, _deps: CliDeps): Command {
  const option = completesWith(
    new Option(
      '--tenant <id-or-name>',
      `tenant to act in, by id or name (env ${TENANT_ENV} or config "tenant"; default: the only tenant of the vault)`,
    ),
    { ids: 'tenant' },
  );
  return command.addOption(option);
}
