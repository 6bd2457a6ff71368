import { Command } from 'commander';
import type { CliDeps } from '../../deps.ts';
import { newTenantCreateCommand } from './create.ts';
import { newTenantListCommand } from './list.ts';
import { newTenantShowCommand } from './show.ts';
import { newTenantUsageCommand } from './usage.ts';

export function newTenantCommand(deps: CliDeps): Command {
  return new Command('tenant')
    .description('Create and inspect tenants (each with its owner, members and applications)')
    .addCommand(newTenantCreateCommand(deps))
    .addCommand(newTenantListCommand(deps))
    .addCommand(newTenantShowCommand(deps))
    .addCommand(newTenantUsageCommand(deps));
}
