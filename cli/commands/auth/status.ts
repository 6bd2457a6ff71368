import { Command } from 'commander';
import { VaultError, isVaultError } from '../../../core/errors/catalogue.ts';
import { cliApiClient } from '../../connection/http-transport.ts';
import { commandOf, type Runner } from '../../program/command-kit.ts';
import { loadConfig } from '../../runtime/config.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { answer } from '../../connection/answer.ts';
import type { ApiAnswer } from '../../connection/api-types.ts';
import {
  addHomeOptions,
  commonOptionsFrom,
  type CommonOptions,
  type RawOptions,
} from '../../options/config-flags.ts';
import { writeRecord } from '../../output/table.ts';
import { writeJson } from '../../output/write.ts';
import { readSession } from '../../connection/session-file.ts';
import { describeTenants } from '../../tenancy/tenant-scope.ts';

export type AuthStatusOptions = CommonOptions;

export function newAuthStatusCommand(
  deps: CliDeps,
  run: Runner<AuthStatusOptions> = (o) => runAuthStatus(deps, o),
): Command {
  const command = new Command('status').description(
    'Who is signed in, to which server, until when, and in which tenants (never the token)',
  );
  addHomeOptions(command, deps);
  return command.action(async (...args: unknown[]) => {
    await run(commonOptionsFrom(commandOf(args).opts<RawOptions>()));
  });
}

export async function runAuthStatus(deps: CliDeps, options: AuthStatusOptions): Promise<void> {
  const { home } = (await loadConfig(deps, options.config)).config;
  const session = await readSession(home);
  if (session === null) {
    throw new VaultError('UNAUTHENTICATED', "not signed in; sign in with 'svc auth login --server URL'");
  }
  // The server says whether the session still holds, and where the member may act.
  const api = cliApiClient({ baseUrl: session.server, credentials: { sessionToken: session.token } });
  let tenants: ApiAnswer<'get', '/tenants'>;
  try {
    tenants = await answer(api.GET('/tenants', {}));
  } catch (error) {
    if (!isVaultError(error, 'UNAUTHENTICATED')) throw error;
    throw new VaultError(
      'UNAUTHENTICATED',
      `the session of ${session.email} with ${session.server} has ended; sign in again with 'svc auth login --server ${session.server}'`,
    );
  }
  if (options.json) {
    writeJson(deps.stdout, {
      server: session.server,
      email: session.email,
      expires_at: session.expiresAt,
      tenants: tenants.map((t) => ({ id: t.id, name: t.name })),
    });
    return;
  }
  writeRecord(deps, [
    ['Server', session.server],
    ['Signed in as', session.email],
    ['Until', session.expiresAt],
    ['Tenants', tenants.length === 0 ? 'none' : describeTenants(tenants)],
  ]);
}
