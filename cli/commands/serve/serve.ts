import { Command } from 'commander';
import type { Runner } from '../../program/command-kit.ts';
import { requireNoServer } from '../../connection/connection.ts';
import { openExistingVault } from '../../local-vault/open.ts';
import { loadConfig } from '../../runtime/config.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import type { RawOptions, VaultCommandOptions } from '../../options/config-flags.ts';
import { servingAction } from '../../serving/serving-command.ts';
import { checkBindAddress, serveVault } from '../../serving/serve-runtime.ts';

export type ServeCommandOptions = VaultCommandOptions & { readonly console?: boolean };

export function newServeCommand(
  deps: CliDeps,
  run: Runner<ServeCommandOptions> = (o) => runServe(deps, o),
): Command {
  const command = new Command('serve')
    .description('Serve the API over an existing vault (never creates one)')
    .option('--console', 'print a one-time sign-in link of the web console (served at /console/)');
  return servingAction<RawOptions & { console?: boolean }>(command, deps, (options, raw) =>
    run({ ...options, console: raw.console === true }),
  );
}

export async function runServe(deps: CliDeps, options: ServeCommandOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  await checkBindAddress(resolved);
  // Said before any key is asked for: one server per vault.
  await requireNoServer(resolved, 'Serving the vault');
  const vault = await openExistingVault(deps, resolved, options.key);
  await serveVault(deps, vault, resolved, { json: options.json, console: options.console === true });
}
