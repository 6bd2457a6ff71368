import { Command } from 'commander';
import type { CliDeps } from '../../runtime/deps.ts';
import { newTenantCreateCommand } from './create.ts';
import { newTenantListCommand } from './list.ts';
import { newTenantShowCommand } from './show.ts';
import { newTenantUsageCommand } from './usage.ts';
import { newTenantUseCommand } from './use.ts';

export function newTenantCommand(deps: CliDeps): Command {
  return new Command('tenant')
    .description(
      'Create and inspect tenants (each with its owner, members and applications); choose the one to act in',
    )
    .addCommand(newTenantCreateCommand(deps))
    .addCommand(newTenantListCommand(deps))
    .addCommand(newTenantShowCommand(deps))
    .addCommand(newTenantUsageCommand(deps))
    .addCommand(newTenantUseCommand(deps));
}
