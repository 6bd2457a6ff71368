import { Command } from 'commander';
import type { CliDeps } from '../../runtime/deps.ts';
import { newProxyCreateCommand } from './create.ts';
import { newProxyDeleteCommand } from './delete.ts';
import { newProxyListCommand } from './list.ts';
import { newProxyShowCommand } from './show.ts';
import { newProxyUpdateCommand } from './update.ts';

export function newProxyCommand(deps: CliDeps): Command {
  return new Command('proxy')
    .description('Manage pre-configured proxies to third-party HTTPS APIs')
    .addCommand(newProxyCreateCommand(deps))
    .addCommand(newProxyListCommand(deps))
    .addCommand(newProxyShowCommand(deps))
    .addCommand(newProxyUpdateCommand(deps))
    .addCommand(newProxyDeleteCommand(deps));
}
