import { stat } from 'node:fs/promises';
import path from 'node:path';
import { Command, Option } from 'commander';
import { resolveKeySource } from '../../../core/config/index.ts';
import { VaultError, isVaultError } from '../../../core/errors/catalogue.ts';
import { commandOf, type Runner } from '../../program/command-kit.ts';
import { confirmDestructive, markDestructive, yesFrom } from '../../program/confirmation.ts';
import { ensurePrivateDir } from '../../local-vault/location.ts';
import { loadVaultFileConfig } from '../../local-vault/vault-file-config.ts';
import { secretInput, type CliDeps } from '../../runtime/deps.ts';
import {
  addVaultOptions,
  vaultOptionsFrom,
  type RawOptions,
  type VaultCommandOptions,
} from '../../options/config-flags.ts';
import { writeJson, writeLine } from '../../output/write.ts';

export interface VaultRestoreOptions extends VaultCommandOptions {
  /** Absolute path of the backup file to read. */
  readonly file: string;
  readonly force: boolean;
  /** Allows a backup of another vault (another vault id) to replace this one. */
  readonly replaceVault: boolean;
}

export function newVaultRestoreCommand(
  deps: CliDeps,
  run: Runner<VaultRestoreOptions> = (o) => runVaultRestore(deps, o),
): Command {
  const command = new Command('restore')
    .description(
      'Replace the vault with a backup (verified first); the key is the one the backup was taken with',
    )
    .argument('<file>', 'backup file to restore')
    .addOption(new Option('--force', 'the same as --yes (kept for scripts)').hideHelp())
    .option('--replace-vault', 'allow a backup of a different vault (another vault id) to replace this one');
  markDestructive(command, 'replacing the vault', {
    verb: 'replace an existing vault',
    when: 'when-replacing',
  });
  addVaultOptions(command, deps);
  return command.action(async (...args: unknown[]) => {
    const raw = commandOf(args).opts<RawOptions & { replaceVault?: boolean }>();
    await run({
      ...vaultOptionsFrom(raw),
      file: path.resolve(deps.cwd, String(args[0])),
      force: raw.force === true || yesFrom(args),
      replaceVault: raw.replaceVault === true,
    });
  });
}

/**
 * Replacing a vault destroys it: a person must confirm, a script must say --yes (or --force).
 * `replacement` names what takes its place (a backup file, a database without its password).
 */
export async function confirmReplace(deps: CliDeps, vaultPath: string, replacement: string): Promise<void> {
  await confirmDestructive(deps, false, {
    action: `replacing the vault at ${vaultPath}`,
    question: `Replace the vault at ${vaultPath} with ${replacement}? The current vault is lost.`,
    unchanged: 'the vault was left as it is',
  });
}

/** The vault id in the backup's header; a missing or foreign file is named as such. */
async function backupVaultId(deps: CliDeps, file: string): Promise<string> {
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new VaultError('USAGE', `${file} is not a file`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new VaultError('NOT_FOUND', `no such file: ${file}`);
    }
    throw error;
  }
  try {
    return (await deps.vault.readVaultStatus(file)).vault_id;
  } catch (error) {
    if (isVaultError(error, 'VAULT_CORRUPT') && /bad magic|header truncated/.test(error.message)) {
      throw new VaultError('VAULT_CORRUPT', `${file} is not a vault backup`);
    }
    throw error;
  }
}

export async function runVaultRestore(deps: CliDeps, options: VaultRestoreOptions): Promise<void> {
  const resolved = await loadVaultFileConfig(deps, options.config, {
    name: 'svc vault restore',
    instead: "restore the database with PostgreSQL's own tools (pg_restore), into an empty database.",
    doing: 'Restoring a backup',
  });
  const { vaultPath } = resolved.config;
  const backupId = await backupVaultId(deps, options.file);
  const exists = await deps.vault.vaultExists(vaultPath);
  if (exists) {
    const { vault_id: vaultId } = await deps.vault.readVaultStatus(vaultPath);
    // --yes answers "replace my vault with its backup?"; another vault's backup is a different
    // mistake (a wrong file), so it needs its own flag.
    if (vaultId !== backupId && !options.replaceVault) {
      throw new VaultError(
        'VAULT_EXISTS',
        `${options.file} is a backup of vault ${backupId}, not of the vault at ${vaultPath} (vault ${vaultId}); pass --replace-vault to replace it with that other vault`,
      );
    }
    if (!options.force) await confirmReplace(deps, vaultPath, options.file);
  }
  // No kind hint: the backup may predate a rekey, so the current vault's key kind proves nothing.
  const key = await resolveKeySource(resolved, options.key, deps.env, secretInput(deps));
  await ensurePrivateDir(vaultPath);
  const result = await deps.vault.restoreVault({
    from: options.file,
    path: vaultPath,
    key,
    force: exists,
    clock: deps.clock,
  });
  if (options.json) {
    writeJson(deps.stdout, { path: vaultPath, from: options.file, sequence: result.sequence });
    return;
  }
  writeLine(deps.stdout, `Restored ${vaultPath} from ${options.file} (sequence ${result.sequence})`);
}
