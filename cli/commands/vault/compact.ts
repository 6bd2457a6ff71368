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

export type VaultCompactOptions = VaultCommandOptions;

export function newVaultCompactCommand(
  deps: CliDeps,
  run: Runner<VaultCompactOptions> = (o) => runVaultCompact(deps, o),
): Command {
  const command = new Command('compact').description('Write a fresh snapshot and empty the journal');
  addVaultOptions(command, deps);
  return command.action(async (...args: unknown[]) => {
    await run(vaultOptionsFrom(commandOf(args).opts<RawOptions>()));
  });
}

export async function runVaultCompact(deps: CliDeps, options: VaultCompactOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  const status = await (await vaultUpkeep(deps, resolved, options.key)).compact();
  if (options.json) {
    writeJson(deps.stdout, {
      path: status.path,
      snapshot_bytes: status.snapshot_bytes,
      snapshot_sequence: status.snapshot_sequence,
      journal_bytes: status.journal_bytes,
    });
    return;
  }
  writeLine(
    deps.stdout,
    `Compacted ${status.path}: snapshot ${formatBytes(status.snapshot_bytes)} at sequence ${status.snapshot_sequence}`,
  );
}
