import type { Command } from 'commander';
import { commandOf } from '../program/command-kit.ts';
import type { CliDeps } from '../runtime/deps.ts';
import {
  addServerOptions,
  addVaultOptions,
  vaultOptionsFrom,
  type RawOptions,
  type VaultCommandOptions,
} from '../options/config-flags.ts';

/**
 * The commands that serve the vault (start, serve, console): adds the vault's options and the
 * server's after the verb's own, and an action that hands `act` the parsed vault options and the raw
 * ones (for the verb's own flags).
 */
export function servingAction<Raw extends RawOptions = RawOptions>(
  command: Command,
  deps: CliDeps,
  act: (options: VaultCommandOptions, raw: Raw) => Promise<void>,
): Command {
  addVaultOptions(command, deps);
  addServerOptions(command, deps);
  return command.action(async (...args: unknown[]) => {
    const raw = commandOf(args).opts<Raw>();
    await act(vaultOptionsFrom(raw), raw);
  });
}
