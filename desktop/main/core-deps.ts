import { bootstrapEmbeddedDefault } from '../../core/tenancy/bootstrap.ts';
import { createVault, openVault } from '../../core/vault/index.ts';
import { startServer } from '../../server/listen.ts';
import { consoleSignInLink } from '../../server/routes/console-sessions.ts';
import type { VaultSessionDeps } from './vault-session.ts';

/** The secret of a one-time console sign-in link: the part after `#`. */
export function signInSecretOf(link: string): string {
  const at = link.indexOf('#');
  if (at < 0 || at === link.length - 1) throw new Error('the console sign-in link has no secret');
  return link.slice(at + 1);
}

/** The real core and server behind a desktop vault session (the same the CLI's `svc serve` uses). */
export const coreVaultSessionDeps: VaultSessionDeps = {
  openVault: (options) => openVault(options),
  createVault: (options) => createVault(options),
  bootstrap: (vault) => bootstrapEmbeddedDefault(vault),
  startServer: (vault, options) => startServer(vault, options),
  issueConsoleSignIn: (server) => signInSecretOf(consoleSignInLink(server.app, server.url)),
};
