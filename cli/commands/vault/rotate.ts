import { Command } from 'commander';
import { commandOf, type Runner } from '../../program/command-kit.ts';
import { vaultWhere } from '../../local-vault/location.ts';
import { keyForVault, openWithKey } from '../../local-vault/open.ts';
import { loadConfig } from '../../runtime/config.ts';
import { requireNoServer } from '../../connection/connection.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import {
  addVaultOptions,
  vaultOptionsFrom,
  type RawOptions,
  type VaultCommandOptions,
} from '../../options/config-flags.ts';
import { snakeCaseKeys, writeJson, writeLine } from '../../output/write.ts';

export type VaultRotateOptions = VaultCommandOptions;

export function newVaultRotateCommand(
  deps: CliDeps,
  run: Runner<VaultRotateOptions> = (o) => runVaultRotate(deps, o),
): Command {
  const command = new Command('rotate').description(
    'Rotate the data keys: a new key term, all data re-encrypted under it, old terms retired',
  );
  addVaultOptions(command, deps);
  return command.action(async (...args: unknown[]) => {
    await run(vaultOptionsFrom(commandOf(args).opts<RawOptions>()));
  });
}

export async function runVaultRotate(deps: CliDeps, options: VaultRotateOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  await requireNoServer(resolved, 'Rotating the vault key');
  const { key } = await keyForVault(deps, resolved, options.key);
  const vault = await openWithKey(deps, resolved, key);
  let result;
  try {
    // Loaded here: key rotation's modules are not needed to parse the command line.
    const { rotateKeys } = await import('../../../core/vault/rotation.ts');
    result = await rotateKeys(vault, key);
  } catch (error) {
    // The rotation's error is the one worth reporting; a failing close must not replace it.
    await vault.close().catch(() => undefined);
    throw error;
  }
  await vault.close();
  if (options.json) {
    writeJson(deps.stdout, snakeCaseKeys({ path: vaultWhere(resolved), ...result }));
    return;
  }
  const retired = result.retired.length === 0 ? 'none' : result.retired.join(', ');
  writeLine(
    deps.stdout,
    `Rotated ${vaultWhere(resolved)}: key term ${result.term} is active, ${result.resealed} token envelopes re-encrypted, retired terms: ${retired}`,
  );
  writeLine(
    deps.stdout,
    'Old copies of the vault file (backups) still open with the old key material; new data does not.',
  );
}
