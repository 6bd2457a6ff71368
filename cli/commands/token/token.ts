import { Command } from 'commander';
import type { CliDeps } from '../../runtime/deps.ts';
import { newTokenChildrenCommand } from './children.ts';
import { newTokenCreateCommand } from './create.ts';
import { newTokenDeleteCommand } from './delete.ts';
import { newTokenGetCommand } from './get.ts';
import { newTokenImportCommand } from './import.ts';
import { newTokenAssociateCommand, newTokenDissociateCommand } from './links.ts';
import { newTokenListCommand } from './list.ts';
import { newTokenSearchCommand } from './search.ts';
import { newTokenUpdateCommand } from './update.ts';

export function newTokenCommand(deps: CliDeps): Command {
  return new Command('token')
    .description('Create, read, list, update, delete, search, import and link tokens')
    .addCommand(newTokenCreateCommand(deps))
    .addCommand(newTokenGetCommand(deps))
    .addCommand(newTokenListCommand(deps))
    .addCommand(newTokenUpdateCommand(deps))
    .addCommand(newTokenDeleteCommand(deps))
    .addCommand(newTokenSearchCommand(deps))
    .addCommand(newTokenImportCommand(deps))
    .addCommand(newTokenChildrenCommand(deps))
    .addCommand(newTokenAssociateCommand(deps))
    .addCommand(newTokenDissociateCommand(deps))
    .addHelpText(
      'after',
      "\nThe CLI acts as the tenant's operator. Reads show data masked unless --reveal; tables never\n" +
        'show data unless --reveal. See also: svc tokenize.',
    );
}
