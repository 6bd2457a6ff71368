import { Command } from 'commander';
import { isVaultError } from '../../../core/errors/catalogue.ts';
import { cliApiClient } from '../../connection/http-transport.ts';
import { commandOf, type Runner } from '../../program/command-kit.ts';
import { loadConfig } from '../../runtime/config.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { answer } from '../../connection/answer.ts';
import {
  addHomeOptions,
  commonOptionsFrom,
  type CommonOptions,
  type RawOptions,
} from '../../options/config-flags.ts';
import { writeJson, writeLine } from '../../output/write.ts';
import { readSession, removeSession, type StoredSession } from '../../connection/session-file.ts';

export type AuthLogoutOptions = CommonOptions;

export function newAuthLogoutCommand(
  deps: CliDeps,
  run: Runner<AuthLogoutOptions> = (o) => runAuthLogout(deps, o),
): Command {
  const command = new Command('logout').description(
    'End the session of svc auth login on its server and delete the session file',
  );
  addHomeOptions(command, deps);
  return command.action(async (...args: unknown[]) => {
    await run(commonOptionsFrom(commandOf(args).opts<RawOptions>()));
  });
}

/** Revokes the session on its server; one the server no longer knows (expired, revoked) is ended. */
export async function endSession(session: StoredSession): Promise<void> {
  const api = cliApiClient({ baseUrl: session.server, credentials: { sessionToken: session.token } });
  try {
    await answer(api.POST('/auth/logout', {}));
  } catch (error) {
    if (!isVaultError(error, 'UNAUTHENTICATED')) throw error;
  }
}

export async function runAuthLogout(deps: CliDeps, options: AuthLogoutOptions): Promise<void> {
  const { home } = (await loadConfig(deps, options.config)).config;
  // A file others could read is still signed out: that is the way to end an exposed session.
  const session = await readSession(home, true);
  if (session === null) {
    if (options.json) writeJson(deps.stdout, { signed_out: false });
    else writeLine(deps.stdout, 'Not signed in.');
    return;
  }
  // The file stays while the server cannot be reached: the session is still valid there.
  await endSession(session);
  await removeSession(home);
  if (options.json)
    writeJson(deps.stdout, { server: session.server, email: session.email, signed_out: true });
  else writeLine(deps.stdout, `Signed out of ${session.server} (${session.email})`);
}
