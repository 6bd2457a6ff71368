import { Command } from 'commander';
import type { CliDeps } from '../../runtime/deps.ts';
import { newVaultBackupCommand } from './backup.ts';
import { newVaultCompactCommand } from './compact.ts';
import { newVaultExportCommand } from './export.ts';
import { newVaultImportCommand } from './import.ts';
import { newVaultRekeyCommand } from './rekey.ts';
import { newVaultRestoreCommand } from './restore.ts';
import { newVaultRotateCommand } from './rotate.ts';
import { newVaultStatusCommand } from './status.ts';

export function newVaultCommand(deps: CliDeps): Command {
  return new Command('vault')
    .description('Inspect and maintain the vault file; move it to PostgreSQL and back')
    .addCommand(newVaultStatusCommand(deps))
    .addCommand(newVaultCompactCommand(deps))
    .addCommand(newVaultBackupCommand(deps))
    .addCommand(newVaultRestoreCommand(deps))
    .addCommand(newVaultRekeyCommand(deps))
    .addCommand(newVaultRotateCommand(deps))
    .addCommand(newVaultExportCommand(deps))
    .addCommand(newVaultImportCommand(deps));
}
