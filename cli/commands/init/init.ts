import { mkdir } from 'node:fs/promises';
import { Command } from 'commander';
import { VaultError } from '../../../core/errors/catalogue.ts';
import { commandOf, type Runner } from '../../program/command-kit.ts';
import { describeVaultLocation } from '../../../core/vault/location.ts';
import { ensurePrivateDir, vaultLocation } from '../../local-vault/location.ts';
import { loadConfig } from '../../runtime/config.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { chooseNewVaultKey } from '../../local-vault/new-key.ts';
import {
  addVaultOptions,
  vaultOptionsFrom,
  type RawOptions,
  type VaultCommandOptions,
} from '../../options/config-flags.ts';
import { snakeCaseKeys, writeJson, writeLine } from '../../output/write.ts';

export type InitOptions = VaultCommandOptions;

export function newInitCommand(deps: CliDeps, run: Runner<InitOptions> = (o) => runInit(deps, o)): Command {
  const command = new Command('init')
    .description(
      'Create a new vault (a generated key file unless --passphrase or --key-file says otherwise); with --database, set one up in an empty PostgreSQL database',
    )
    .addHelpText(
      'after',
      '\nThe key comes from --passphrase / --passphrase-stdin, --key-file PATH (used if it exists, generated if not),\n' +
        'SVC_VAULT_KEY or SVC_VAULT_PASSPHRASE; with none of them a key file is generated at <home>/vault.key.',
    );
  addVaultOptions(command, deps, 'key file to use or generate');
  return command.action(async (...args: unknown[]) => {
    await run(vaultOptionsFrom(commandOf(args).opts<RawOptions>()));
  });
}

export async function runInit(deps: CliDeps, options: InitOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  const { home } = resolved.config;
  const location = vaultLocation(resolved);
  const where = describeVaultLocation(location);
  if ((await deps.vault.vaultStatusAt(location)) !== null) {
    throw new VaultError('VAULT_EXISTS', `a vault already exists in ${where}; it was left as it is`);
  }
  await mkdir(home, { recursive: true, mode: 0o700 });
  const chosen = await chooseNewVaultKey(deps, resolved, options.key);
  if (location.backend === 'embedded') await ensurePrivateDir(location.path);
  const vault = await deps.vault.createVaultAt(location, {
    key: chosen.key,
    snapshotThresholdBytes: resolved.config.snapshotThresholdBytes,
    clock: deps.clock,
  });
  await vault.close();

  if (options.json) {
    writeJson(
      deps.stdout,
      snakeCaseKeys({
        path: where,
        backend: location.backend,
        keySource: chosen.key.kind,
        keyFile: chosen.keyFile,
        keyFileCreated: chosen.keyFileCreated,
      }),
    );
    return;
  }
  writeLine(
    deps.stdout,
    location.backend === 'embedded'
      ? `Created vault at ${where}`
      : `Set up the vault in the database ${where}`,
  );
  if (chosen.keyFile === null) {
    writeLine(
      deps.stdout,
      `Unlocked by: ${chosen.key.kind === 'passphrase' ? 'a passphrase' : 'the key in SVC_VAULT_KEY'}`,
    );
    return;
  }
  writeLine(
    deps.stdout,
    `Key file: ${chosen.keyFile}${chosen.keyFileCreated ? ' (generated)' : ' (existing)'}`,
  );
  writeLine(
    deps.stdout,
    'Keep a copy of the key file somewhere safe: without it the vault cannot be opened.',
  );
}
