import pkg from '../package.json' with { type: 'json' };
import type { ResolvedConfig } from '../core/config/index.ts';
import { VaultError } from '../core/errors/catalogue.ts';
import type { VaultHandle } from '../core/vault/types.ts';
import { serverAdminOptionsFrom } from './admin-config.ts';
import type { EmbeddedOwner } from '../core/tenancy/bootstrap.ts';
import { readNewPassword } from './ask.ts';
import type { CliDeps } from './deps.ts';
import { colours, writeJson, writeLine } from './output.ts';

/**
 * Refuses a non-loopback address without --allow-remote before the vault is unlocked, so the
 * mistake costs no passphrase prompt (the server enforces the same rule).
 */
export async function checkBindAddress(resolved: ResolvedConfig): Promise<void> {
  const { host, allowRemote } = resolved.config;
  // Lazy: the server module pulls in Fastify, which only a serving command needs.
  const { isLoopbackHost } = await import('../server/listen.ts');
  if (!isLoopbackHost(host) && !allowRemote) {
    throw new VaultError(
      'USAGE',
      `refusing to listen on ${host}, which is not a loopback address; pass --allow-remote (or set SVC_ALLOW_REMOTE=1) to expose the vault to the network`,
    );
  }
}

export interface ServeOptions {
  readonly json: boolean;
  /** Print a one-time sign-in link of the console (`svc start`, `svc serve --console`). */
  readonly console?: boolean;
}

/**
 * The owner of the Default tenant made at the first start: asked on a terminal (e-mail, and a
 * password that may be left empty to set later), otherwise the documented default address with no
 * password, which the operator claims later with `svc user passwd`.
 */
async function askEmbeddedOwner(deps: CliDeps): Promise<EmbeddedOwner> {
  if (!deps.isTTY) return {};
  const { EMBEDDED_OWNER_EMAIL } = await import('../core/tenancy/bootstrap.ts');
  const email = await deps.prompter.input({
    message: 'E-mail of the owner of the Default tenant:',
    default: EMBEDDED_OWNER_EMAIL,
  });
  const password = await readNewPassword(deps, {
    who: email,
    fromStdin: false,
    stdinFlag: '--password-stdin',
    optional: true,
  });
  if (password === undefined) return { email };
  const { hashPassword } = await import('../core/identity/passwords.ts');
  return { email, passwordHash: await hashPassword(password) };
}

/**
 * Runs the HTTP server over an open vault until SIGINT/SIGTERM, then closes the server and the vault
 * (which snapshots and releases the lock). Owns `vault` from here on: closes it on every path.
 */
export async function serveVault(
  deps: CliDeps,
  vault: VaultHandle,
  resolved: ResolvedConfig,
  options: ServeOptions,
): Promise<void> {
  const { host, port, allowRemote, bodyLimit, logLevel } = resolved.config;
  let server: Awaited<ReturnType<CliDeps['startServer']>>;
  let bootstrapped: Awaited<ReturnType<CliDeps['tenancy']['bootstrapEmbeddedDefault']>>;
  let applications: Awaited<ReturnType<CliDeps['tenancy']['listApplications']>> = [];
  try {
    const owner = (await deps.tenancy.needsEmbeddedDefault(vault)) ? await askEmbeddedOwner(deps) : {};
    bootstrapped = await deps.tenancy.bootstrapEmbeddedDefault(vault, owner);
    if (bootstrapped === null) applications = await deps.tenancy.listApplications(vault);
    server = await deps.startServer(vault, {
      host,
      port,
      allowRemote,
      bodyLimit,
      version: pkg.version,
      // Invitation mail as the CLI's own commands send it; links default to the server's own URL.
      admin: serverAdminOptionsFrom(resolved.config),
      // Request logs go to stderr: stdout carries only what the command reports (URL, key, JSON).
      logger: { level: logLevel, destination: deps.stderr },
    });
  } catch (error) {
    await vault.close().catch(() => undefined);
    throw error;
  }

  try {
    // The server words the non-loopback warning; the CLI only prints it.
    const { yellow } = colours(deps, deps.stderr);
    for (const warning of server.warnings) writeLine(deps.stderr, `${yellow('warning:')} ${warning}`);

    // Lazy like checkBindAddress: only a serving command loads the server's modules.
    const consoleLink = options.console
      ? (await import('../server/routes/console-sessions.ts')).consoleSignInLink(server.app, server.url)
      : null;
    if (options.json) {
      writeJson(deps.stdout, {
        url: server.url,
        consoleLink,
        apiKey: bootstrapped?.apiKey ?? null,
        tenantId: bootstrapped?.tenantId ?? null,
        applicationId: bootstrapped?.applicationId ?? null,
        ownerEmail: bootstrapped?.ownerEmail ?? null,
        ownerCanSignIn: bootstrapped?.ownerCanSignIn ?? null,
        applications,
      });
    } else {
      writeLine(deps.stdout, `URL: ${server.url}`);
      if (consoleLink !== null) {
        writeLine(deps.stdout, `Console (one-time sign-in link, valid 5 minutes): ${consoleLink}`);
      }
      if (bootstrapped !== null) {
        writeLine(deps.stdout, `Management API key (shown once): ${bootstrapped.apiKey}`);
        writeLine(
          deps.stdout,
          `Application: ${bootstrapped.applicationId} (tenant ${bootstrapped.tenantId})`,
        );
        writeLine(
          deps.stdout,
          bootstrapped.ownerCanSignIn
            ? `Tenant owner: ${bootstrapped.ownerEmail}`
            : `Tenant owner: ${bootstrapped.ownerEmail} (no password yet; to claim it, stop the server and run: svc user passwd ${bootstrapped.ownerEmail})`,
        );
      } else {
        writeLine(
          deps.stdout,
          'Management API key: shown only once, on the first run. To mint a new one, stop the server and run: svc app regenerate <application-id>',
        );
        for (const app of applications)
          writeLine(deps.stdout, `Application: ${app.id} (${app.name}, ${app.type})`);
      }
    }
    if (deps.stderr.isTTY) writeLine(deps.stderr, 'Press Ctrl-C to stop.');

    const signal = await deps.waitForShutdown();
    writeLine(deps.stderr, `Stopping (${signal})…`);
  } finally {
    // Server first, so no request is mid-write when the vault takes its closing snapshot.
    try {
      await server.close();
    } finally {
      await vault.close();
    }
  }
}
