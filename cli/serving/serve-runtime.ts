import pkg from '../../package.json' with { type: 'json' };
import { startReadRetention } from '../../core/audit/retention.ts';
import type { ResolvedConfig } from '../../core/config/index.ts';
import { VaultError, isVaultError } from '../../core/errors/catalogue.ts';
import { createOutboundClient, loadOutboundSettings } from '../../core/outbound/index.ts';
import { limitsFromSettings } from '../../core/sandbox/limits.ts';
import type { VaultHandle } from '../../core/vault/types.ts';
import { serverTenancyOptionsFrom } from '../services/tenancy-options.ts';
import type { EmbeddedOwner } from '../../core/tenancy/bootstrap.ts';
import { readNewPassword } from '../prompts/ask.ts';
import { humanLogWriter } from './log-lines.ts';
import type { CliDeps } from '../runtime/deps.ts';
import { colours, snakeCaseKeys, writeJson, writeLine } from '../output/write.ts';
import { svcCommand } from '../output/runnable.ts';

/**
 * Refuses a non-loopback address without --allow-remote before the vault is unlocked, so the
 * mistake costs no passphrase prompt (the server enforces the same rule).
 */
export async function checkBindAddress(resolved: ResolvedConfig): Promise<void> {
  const { host, allowRemote } = resolved.config;
  // Lazy: the server module pulls in Fastify, which only a serving command needs.
  const { isLoopbackHost } = await import('../../server/listen.ts');
  if (!isLoopbackHost(host) && !allowRemote) {
    throw new VaultError(
      'USAGE',
      `refusing to listen on ${host}, which is not a loopback address; pass --allow-remote (or set SVC_ALLOW_REMOTE=1) to expose the vault to the network`,
    );
  }
}

/**
 * Starts the server; a port that is taken names the two ways to choose another (exit 1: nothing is
 * wrong with the command line, the machine is busy).
 */
async function listen(
  deps: CliDeps,
  vault: VaultHandle,
  options: Parameters<CliDeps['startServer']>[1],
): ReturnType<CliDeps['startServer']> {
  try {
    return await deps.startServer(vault, options);
  } catch (error) {
    const code = (error instanceof Error ? (error.cause as NodeJS.ErrnoException | undefined) : undefined)
      ?.code;
    if (isVaultError(error) && code === 'EADDRINUSE') {
      throw new VaultError(
        'LISTEN_FAILED',
        `${error.message.replace(/\.$/, '')}; choose another with --port <n> or SVC_PORT (0 picks a free one)`,
        { cause: error },
      );
    }
    throw error;
  }
}

export interface ServeOptions {
  readonly json: boolean;
  /** Print a one-time sign-in link of the console (`svc start`, `svc serve --console`). */
  readonly console?: boolean;
  /** Called with the console's one-time link once it is printed (`svc console` opens a browser). */
  readonly onConsoleLink?: (link: string) => Promise<void>;
}

/**
 * The owner of the Default tenant made at the first start: asked on a terminal (e-mail, and a
 * password that may be left empty to set later), otherwise the documented default address with no
 * password, which the operator claims later with `svc user passwd`.
 */
async function askEmbeddedOwner(deps: CliDeps): Promise<EmbeddedOwner> {
  if (!deps.isTTY) return {};
  const { EMBEDDED_OWNER_EMAIL } = await import('../../core/tenancy/bootstrap.ts');
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
  const { hashPassword } = await import('../../core/identity/passwords.ts');
  return { email, passwordHash: await hashPassword(password) };
}

/**
 * Runs the HTTP server over an open vault until SIGINT/SIGTERM, then closes the server and the vault
 * (which snapshots and releases the lock). Owns `vault` from here on: closes it on every path.
 */
function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export async function serveVault(
  deps: CliDeps,
  vault: VaultHandle,
  resolved: ResolvedConfig,
  options: ServeOptions,
): Promise<void> {
  const { host, port, allowRemote, bodyLimit, logLevel, rateLimit } = resolved.config;
  let server: Awaited<ReturnType<CliDeps['startServer']>>;
  let bootstrapped: Awaited<ReturnType<CliDeps['tenancy']['bootstrapEmbeddedDefault']>>;
  let applications: Awaited<ReturnType<CliDeps['tenancy']['listApplications']>> = [];
  try {
    const owner = (await deps.tenancy.needsEmbeddedDefault(vault)) ? await askEmbeddedOwner(deps) : {};
    // Proxy destinations: proxyAllow / proxyCaFile / proxyTimeoutMs, read before the server starts.
    const outbound = createOutboundClient(await loadOutboundSettings(resolved.config));
    // The server listens before the first-run tenant and key are made: a start that fails (a port
    // in use, say) creates nothing, so the key shown once is never shown to a process that died.
    server = await listen(deps, vault, {
      // Reactor and transform sandbox: reactorTimeoutMs / reactorMemoryMb.
      serviceOptions: { outbound, sandbox: { limits: limitsFromSettings(resolved.config) } },
      host,
      port,
      allowRemote,
      bodyLimit,
      rateLimit,
      version: pkg.version,
      // Servers on a database share it with each other and with CLI commands: no lock, no file.
      operatorCredentialFile: resolved.config.databaseUrl === null,
      // Invitation mail as the CLI's own commands send it; links default to the server's own URL.
      tenancy: serverTenancyOptionsFrom(resolved.config),
      // Request logs go to stderr: stdout carries only what the command reports (URL, key, JSON).
      // On a terminal the lines are for a person; piped, they stay JSON for log tooling.
      logger: {
        level: logLevel,
        destination: deps.stderr.isTTY ? humanLogWriter(deps.stderr) : deps.stderr,
      },
    });
    try {
      bootstrapped = await deps.tenancy.bootstrapEmbeddedDefault(vault, owner);
      if (bootstrapped === null) applications = await deps.tenancy.listApplications(vault);
    } catch (error) {
      await server.close().catch(() => undefined);
      throw error;
    }
  } catch (error) {
    await vault.close().catch(() => undefined);
    throw error;
  }

  // Old read entries of the audit log go daily while serving (auditReadRetentionDays; 0 keeps all).
  const stopRetention = startReadRetention(vault, resolved.config.auditReadRetentionDays, (error) =>
    writeLine(deps.stderr, `warning: audit read retention failed: ${errorMessage(error)}`),
  );
  try {
    // The server words the non-loopback warning; the CLI only prints it.
    const { yellow } = colours(deps, deps.stderr);
    for (const warning of server.warnings) writeLine(deps.stderr, `${yellow('warning:')} ${warning}`);

    // Lazy like checkBindAddress: only a serving command loads the server's modules.
    const consoleLink = options.console
      ? (await import('../../server/routes/console-sessions.ts')).consoleSignInLink(server.app, server.url)
      : null;
    if (options.json) {
      writeJson(deps.stdout, {
        url: server.url,
        console_link: consoleLink,
        api_key: bootstrapped?.apiKey ?? null,
        tenant_id: bootstrapped?.tenantId ?? null,
        application_id: bootstrapped?.applicationId ?? null,
        owner_email: bootstrapped?.ownerEmail ?? null,
        owner_can_sign_in: bootstrapped?.ownerCanSignIn ?? null,
        applications: snakeCaseKeys(applications),
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
            : `Tenant owner: ${bootstrapped.ownerEmail} (no password yet; to claim it, run: ${svcCommand(deps.env)} user passwd ${bootstrapped.ownerEmail})`,
        );
      } else {
        writeLine(
          deps.stdout,
          `Management API key: shown only once, on the first run. To mint a new one, run: ${svcCommand(deps.env)} app regenerate <application-id> (the ids: ${svcCommand(deps.env)} app list)`,
        );
        // With several tenants, the tenant says which one a management key would act in.
        for (const app of applications)
          writeLine(
            deps.stdout,
            `Application: ${app.id} (${app.name}, ${app.type}) in tenant ${app.tenantId}`,
          );
      }
    }
    if (consoleLink !== null && options.onConsoleLink !== undefined) {
      // A browser that cannot be opened is not a reason to stop serving: the link is printed above.
      await options
        .onConsoleLink(consoleLink)
        .catch((error: unknown) =>
          writeLine(
            deps.stderr,
            `warning: could not open a browser (${errorMessage(error)}); open the link above`,
          ),
        );
    }
    if (deps.stderr.isTTY) writeLine(deps.stderr, 'Press Ctrl-C to stop.');

    const signal = await deps.waitForShutdown();
    writeLine(deps.stderr, `Stopping (${signal})…`);
  } finally {
    // Server first, so no request is mid-write when the vault takes its closing snapshot.
    try {
      await server.close();
      await stopRetention();
    } finally {
      await vault.close();
    }
  }
}
