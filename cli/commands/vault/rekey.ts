import { Command, Option } from 'commander';
import {
  SECRET_ENV,
  expandPath,
  loadOrCreateKeyFile,
  resolveNewPassphrase,
} from '../../../core/config/index.ts';
import { VaultError } from '../../../core/errors/catalogue.ts';
import type { KeySource } from '../../../core/crypto/root-key.ts';
import { retryOnMismatch } from '../../prompts/ask.ts';
import { commandOf, type Runner } from '../../program/command-kit.ts';
import { ensurePrivateDir, vaultLocation } from '../../local-vault/location.ts';
import { keyForVault } from '../../local-vault/open.ts';
import { loadConfig } from '../../runtime/config.ts';
import { describeVaultLocation } from '../../../core/vault/location.ts';
import { requireNoServer } from '../../connection/connection.ts';
import { secretInput, type CliDeps } from '../../runtime/deps.ts';
import {
  addVaultOptions,
  vaultOptionsFrom,
  type RawOptions,
  type VaultCommandOptions,
} from '../../options/config-flags.ts';
import { snakeCaseKeys, writeJson, writeLine } from '../../output/write.ts';

export type NewKeyChoice =
  { readonly kind: 'passphrase' } | { readonly kind: 'key-file'; readonly path: string };

export interface VaultRekeyOptions extends VaultCommandOptions {
  readonly newKey: NewKeyChoice;
}

interface RawRekeyOptions extends RawOptions {
  newPassphrase?: boolean;
  newKeyFile?: string;
}

export function newVaultRekeyCommand(
  deps: CliDeps,
  run: Runner<VaultRekeyOptions> = (o) => runVaultRekey(deps, o),
): Command {
  const command = new Command('rekey')
    .description(
      'Change the root key (re-wraps the keyring; the data keys stay the same: use `svc vault rotate` for new ones)',
    )
    .addOption(
      new Option(
        '--new-passphrase',
        `new passphrase (${SECRET_ENV.newPassphrase}, else typed twice)`,
      ).conflicts('newKeyFile'),
    )
    .addOption(
      new Option('--new-key-file <file>', 'new key file (generated if missing)').conflicts('newPassphrase'),
    );
  addVaultOptions(command, deps, 'current key file');
  return command.action(async (...args: unknown[]) => {
    const raw = commandOf(args).opts<RawRekeyOptions>();
    let newKey: NewKeyChoice;
    if (raw.newPassphrase === true) newKey = { kind: 'passphrase' };
    else if (raw.newKeyFile !== undefined)
      newKey = { kind: 'key-file', path: expandPath(raw.newKeyFile, deps.cwd) };
    else throw new VaultError('USAGE', 'say what the new key is: --new-passphrase or --new-key-file <file>');
    await run({ ...vaultOptionsFrom(raw), newKey });
  });
}

export async function runVaultRekey(deps: CliDeps, options: VaultRekeyOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  // On a database there is no lock: servers running on it keep serving (the data keys stay the
  // same), and need the new key at their next start.
  await requireNoServer(resolved, 'Changing the vault key');
  const onDatabase = resolved.config.databaseUrl !== null;
  const where = describeVaultLocation(vaultLocation(resolved));
  const current = await keyForVault(deps, resolved, options.key);
  const oldKeyFile = current.keyFile ?? null;

  let newKey: KeySource;
  let newKeyFile: string | null = null;
  let created = false;
  if (options.newKey.kind === 'passphrase') {
    newKey = await retryOnMismatch(deps, () =>
      resolveNewPassphrase({
        env: deps.env,
        envName: SECRET_ENV.newPassphrase,
        input: secretInput(deps),
      }),
    );
  } else {
    newKeyFile = options.newKey.path;
    if (oldKeyFile !== null && oldKeyFile === newKeyFile) {
      throw new VaultError(
        'USAGE',
        `${newKeyFile} is the current key file; give the new key file another path`,
      );
    }
    await ensurePrivateDir(newKeyFile);
    ({ key: newKey, created } = await loadOrCreateKeyFile(newKeyFile));
  }

  await deps.vault.rekeyVault({
    path: resolved.config.vaultPath,
    databaseUrl: resolved.config.databaseUrl,
    key: current.key,
    newKey,
    clock: deps.clock,
  });

  if (options.json) {
    writeJson(
      deps.stdout,
      snakeCaseKeys({
        path: where,
        keySource: newKey.kind,
        keyFile: newKeyFile,
        keyFileCreated: created,
      }),
    );
    return;
  }
  writeLine(
    deps.stdout,
    newKeyFile === null
      ? `Re-keyed ${where}: it is now unlocked by the new passphrase`
      : `Re-keyed ${where}: it is now unlocked by the key file ${newKeyFile}${created ? ' (generated)' : ''}`,
  );
  // Rekeying re-wraps the same data keys: say what the old key still opens, and how to end that.
  writeLine(
    deps.stdout,
    `The data keys are unchanged: the old ${oldKeyFile === null ? 'passphrase' : `key file ${oldKeyFile}`} no longer opens this vault${onDatabase ? '' : ' file'}, but with an old copy of it (a backup) it still reads data written later. Run \`svc vault rotate\` to move the data to new keys.`,
  );
  if (onDatabase) {
    writeLine(
      deps.stdout,
      'Servers running on the database keep serving; give them the new key before their next start.',
    );
  }
  if (newKeyFile !== null && newKeyFile !== resolved.config.keyFile) {
    writeLine(
      deps.stdout,
      `Use it with --key-file ${newKeyFile}, SVC_KEY_FILE, or "keyFile" in config.json.`,
    );
  }
}
