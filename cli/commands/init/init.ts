import { mkdir } from 'node:fs/promises';
import { Command } from 'commander';
import { VaultError } from '../../../core/errors/catalogue.ts';
import { commandOf, type Runner } from '../../command-kit.ts';
import { ensurePrivateDir, loadConfig } from '../../context.ts';
import type { CliDeps } from '../../deps.ts';
import { chooseNewVaultKey } from '../../new-key.ts';
import {
  addJsonOption,
  addVaultOptions,
  vaultOptionsFrom,
  type RawOptions,
  type VaultCommandOptions,
} from '../../options.ts';
import { snakeCaseKeys, writeJson, writeLine } from '../../output.ts';

export type InitOptions = VaultCommandOptions;

export function newInitCommand(deps: CliDeps, run: Runner<InitOptions> = (o) => runInit(deps, o)): Command {
  const command = new Command('init')
    .description('Create a new vault (a generated key file unless --passphrase or --key-file says otherwise)')
    .addHelpText(
      'after',
      '\nThe key comes from --passphrase / --passphrase-stdin, --key-file PATH (used if it exists, generated if not),\n' +
        'SVC_VAULT_KEY or SVC_VAULT_PASSPHRASE; with none of them a key file is generated at <home>/vault.key.',
    );
  addVaultOptions(command, deps, 'key file to use or generate');
  addJsonOption(command);
  return command.action(async (...args: unknown[]) => {
    await run(vaultOptionsFrom(commandOf(args).opts<RawOptions>()));
  });
}

export async function runInit(deps: CliDeps, options: InitOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  const { vaultPath, home } = resolved.config;
  if (await deps.vault.vaultExists(vaultPath)) {
    throw new VaultError('VAULT_EXISTS', `a vault already exists at ${vaultPath}; it was left as it is`);
  }
  await mkdir(home, { recursive: true, mode: 0o700 });
  const chosen = await chooseNewVaultKey(deps, resolved, options.key);
  await ensurePrivateDir(vaultPath);
  const vault = await deps.vault.createVault({
    path: vaultPath,
    key: chosen.key,
    snapshotThresholdBytes: resolved.config.snapshotThresholdBytes,
    clock: deps.clock,
  });
  await vault.close();

  if (options.json) {
    writeJson(
      deps.stdout,
      snakeCaseKeys({
        path: vaultPath,
        keySource: chosen.key.kind,
        keyFile: chosen.keyFile,
        keyFileCreated: chosen.keyFileCreated,
      }),
    );
    return;
  }
  writeLine(deps.stdout, `Created vault at ${vaultPath}`);
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
