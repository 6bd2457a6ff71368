import { Command } from 'commander';
import { VaultError } from '../../../core/errors/catalogue.ts';
import { cliApiClient } from '../../connection/http-transport.ts';
import { readExistingPassword, valueOrPrompt } from '../../prompts/ask.ts';
import { commandOf, type Runner } from '../../program/command-kit.ts';
import { loadConfig } from '../../runtime/config.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { answer } from '../../connection/answer.ts';
import {
  addHomeOptions,
  commonOptionsFrom,
  serverOption,
  type CommonOptions,
  type RawOptions,
} from '../../options/config-flags.ts';
import { writeJson, writeLine } from '../../output/write.ts';
import { readSession, serverKey, writeSession } from '../../connection/session-file.ts';
import { endSession } from './logout.ts';

export interface AuthLoginOptions extends CommonOptions {
  readonly email: string | undefined;
  readonly passwordStdin: boolean;
}

const HELP_AFTER = `
The session is kept in <home>/session.json, readable by you only, and never printed. Commands
given --server (or SVC_SERVER) for the same server and no API key then act as you, in the tenants
you are a member of (--tenant picks one). 'svc auth logout' ends the session on the server.

Example:
  echo "$PASSWORD" | svc auth login --server https://vault.example.com --email ada@example.com --password-stdin`;

export function newAuthLoginCommand(
  deps: CliDeps,
  run: Runner<AuthLoginOptions> = (o) => runAuthLogin(deps, o),
): Command {
  const command = new Command('login')
    .description('Sign in to a server with e-mail and password; later --server commands use the session')
    .addOption(serverOption(deps, 'the server to sign in to'))
    .option('--email <email>', 'your e-mail address (asked on a terminal)')
    .option('--password-stdin', 'read the password from standard input (else a hidden prompt)');
  addHomeOptions(command, deps);
  command.addHelpText('after', HELP_AFTER);
  return command.action(async (...args: unknown[]) => {
    const raw = commandOf(args).opts<RawOptions & { email?: string; passwordStdin?: boolean }>();
    await run({ ...commonOptionsFrom(raw), email: raw.email, passwordStdin: raw.passwordStdin === true });
  });
}

export async function runAuthLogin(deps: CliDeps, options: AuthLoginOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  const { server, home } = resolved.config;
  if (server === null) {
    throw new VaultError('USAGE', 'missing --server (the server to sign in to; or set SVC_SERVER)');
  }
  const email = await valueOrPrompt(deps, options.email, '--email', 'E-mail:');
  const password = await readExistingPassword(deps, {
    fromStdin: options.passwordStdin,
    stdinFlag: '--password-stdin',
    message: `Password for ${email}:`,
  });
  const url = serverKey(server);
  const session = await answer(
    cliApiClient({ baseUrl: url }).POST('/auth/login', { body: { email, password } }),
  );
  // One stored session at a time: the one it replaces is ended, not left valid on its server.
  const previous = await readSession(home, true).catch(() => null);
  if (previous !== null) await endSession(previous).catch(() => undefined);
  await writeSession(home, { server: url, email, token: session.token, expiresAt: session.expires_at });
  if (options.json) {
    writeJson(deps.stdout, { server: url, email, expires_at: session.expires_at });
    return;
  }
  writeLine(deps.stdout, `Signed in to ${url} as ${email} (until ${session.expires_at})`);
}
