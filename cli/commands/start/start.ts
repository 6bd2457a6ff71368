import { mkdir } from 'node:fs/promises';
import { Command } from 'commander';
import type { Runner } from '../../program/command-kit.ts';
import { describeVaultLocation } from '../../../core/vault/location.ts';
import { requireNoServer } from '../../connection/connection.ts';
import { ensurePrivateDir, vaultLocation } from '../../local-vault/location.ts';
import { openExistingVault } from '../../local-vault/open.ts';
import { loadConfig } from '../../runtime/config.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { chooseNewVaultKey } from '../../local-vault/new-key.ts';
import type { VaultCommandOptions } from '../../options/config-flags.ts';
import { servingAction } from '../../serving/serving-command.ts';
import { writeLine } from '../../output/write.ts';
import { checkBindAddress, serveVault } from '../../serving/serve-runtime.ts';

export type StartOptions = VaultCommandOptions;

export function newStartCommand(
  deps: CliDeps,
  run: Runner<StartOptions> = (o) => runStart(deps, o),
): Command {
  const command = new Command('start').description(
    'Run the embedded default: create the vault and its key file on first run, then serve the API',
  );
  return servingAction(command, deps, run);
}

export async function runStart(deps: CliDeps, options: StartOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  await checkBindAddress(resolved);
  const { home } = resolved.config;
  const location = vaultLocation(resolved);
  const where = describeVaultLocation(location);

  let vault;
  if ((await deps.vault.vaultStatusAt(location)) !== null) {
    // Said before any key is asked for: one server per vault file.
    await requireNoServer(resolved, 'Serving the vault');
    vault = await openExistingVault(deps, resolved, options.key);
  } else {
    await mkdir(home, { recursive: true, mode: 0o700 });
    const chosen = await chooseNewVaultKey(deps, resolved, options.key);
    if (location.backend === 'embedded') await ensurePrivateDir(location.path);
    vault = await deps.vault.createVaultAt(location, {
      key: chosen.key,
      snapshotThresholdBytes: resolved.config.snapshotThresholdBytes,
      clock: deps.clock,
    });
    // Progress notes go to stderr: stdout carries only the URL and key (or the JSON object).
    writeLine(
      deps.stderr,
      location.backend === 'embedded'
        ? `Created vault at ${where}`
        : `Set up the vault in the database ${where}`,
    );
    if (chosen.keyFile !== null) {
      writeLine(
        deps.stderr,
        `Key file: ${chosen.keyFile}${chosen.keyFileCreated ? ' (generated; keep a copy somewhere safe)' : ''}`,
      );
    }
  }
  await serveVault(deps, vault, resolved, { json: options.json, console: true });
}
