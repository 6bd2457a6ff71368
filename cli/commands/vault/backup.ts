import path from 'node:path';
import { Command } from 'commander';
import { commandOf, type Runner } from '../../program/command-kit.ts';
import { loadConfig } from '../../runtime/config.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import {
  addVaultOptions,
  vaultOptionsFrom,
  type RawOptions,
  type VaultCommandOptions,
} from '../../options/config-flags.ts';
import { formatBytes, writeJson, writeLine } from '../../output/write.ts';
import { vaultUpkeep } from '../../services/upkeep.ts';

export interface VaultBackupOptions extends VaultCommandOptions {
  /** Absolute path of the backup file to write. */
  readonly file: string;
  readonly force: boolean;
}

export function newVaultBackupCommand(
  deps: CliDeps,
  run: Runner<VaultBackupOptions> = (o) => runVaultBackup(deps, o),
): Command {
  const command = new Command('backup')
    .description('Write a consistent, encrypted copy of the vault to a file (works while a server runs)')
    .argument('<file>', 'backup file to write')
    .option('--force', 'overwrite the backup file if it exists');
  addVaultOptions(command, deps);
  return command.action(async (...args: unknown[]) => {
    const raw = commandOf(args).opts<RawOptions>();
    await run({
      ...vaultOptionsFrom(raw),
      file: path.resolve(deps.cwd, String(args[0])),
      force: raw.force === true,
    });
  });
}

export async function runVaultBackup(deps: CliDeps, options: VaultBackupOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  const result = await (await vaultUpkeep(deps, resolved, options.key)).backup(options.file, options.force);
  if (options.json) {
    writeJson(deps.stdout, { file: options.file, bytes: result.bytes, sequence: result.sequence });
    return;
  }
  writeLine(
    deps.stdout,
    `Backup written to ${options.file} (${formatBytes(result.bytes)}, sequence ${result.sequence})`,
  );
  writeLine(
    deps.stdout,
    'It opens with the key the vault has now: keep that key as long as you keep the backup.',
  );
}
