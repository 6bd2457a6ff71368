import { spawn } from 'node:child_process';
import { Command } from 'commander';
import type { Runner } from '../../program/command-kit.ts';
import { openExistingVault } from '../../local-vault/open.ts';
import { loadConfig } from '../../runtime/config.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import type { VaultCommandOptions } from '../../options/config-flags.ts';
import { servingAction } from '../../serving/serving-command.ts';
import { writeLine } from '../../output/write.ts';
import { checkBindAddress, serveVault } from '../../serving/serve-runtime.ts';

/** Opens a URL in the user's default browser. */
export type BrowserOpener = (url: string) => Promise<void>;

/** How long a server named by the lock file gets to answer its health check. */
const HEALTH_TIMEOUT_MS = 2_000;

/**
 * The platform's own command for opening a URL (`open`, `xdg-open`, `start`), detached so the
 * browser outlives nothing of ours; resolves once it started, rejects when there is none.
 */
export function systemBrowserOpener(platform: NodeJS.Platform = process.platform): BrowserOpener {
  return (url) =>
    new Promise<void>((resolve, reject) => {
      const [command, args] =
        platform === 'darwin'
          ? ['open', [url]]
          : platform === 'win32'
            ? ['cmd', ['/c', 'start', '""', url.replace(/&/g, '^&')]]
            : ['xdg-open', [url]];
      const child = spawn(command, args, { detached: true, stdio: 'ignore' });
      child.once('error', reject);
      child.once('spawn', () => {
        child.unref();
        resolve();
      });
    });
}

/** True when `url` is a vault server that answers its health check. */
async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) });
    return response.ok;
  } catch {
    return false;
  }
}

export function newConsoleCommand(
  deps: CliDeps,
  run?: Runner<VaultCommandOptions>,
  openBrowser: BrowserOpener = systemBrowserOpener(),
): Command {
  const command = new Command('console').description(
    'Open the web console in the default browser: the server holding the vault, or a new one (signed in with a one-time link)',
  );
  return servingAction(command, deps, run ?? ((o) => runConsole(deps, o, openBrowser)));
}

/**
 * A server already holding the vault (its lock file names its URL) is used as it is: its console
 * opens at the sign-in screen, since a one-time link can only come from the process that holds the
 * vault. Otherwise this command serves the vault itself, like `svc serve --console`, and opens the
 * console with the fresh link it prints; it serves until stopped.
 */
export async function runConsole(
  deps: CliDeps,
  options: VaultCommandOptions,
  open: BrowserOpener,
): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  if (resolved.config.databaseUrl === null && (await deps.vault.vaultExists(resolved.config.vaultPath))) {
    const holder = (await deps.vault.readVaultStatus(resolved.config.vaultPath)).lock_holder;
    if (holder?.url !== undefined && (await answers(holder.url))) {
      const address = `${holder.url}/console/`;
      writeLine(deps.stdout, `Console: ${address}`);
      writeLine(
        deps.stderr,
        `The vault is served by process ${holder.pid}; sign in with e-mail and password (its one-time link was printed where it started).`,
      );
      await open(address);
      return;
    }
  }
  await checkBindAddress(resolved);
  const vault = await openExistingVault(deps, resolved, options.key);
  await serveVault(deps, vault, resolved, { json: options.json, console: true, onConsoleLink: open });
}
