import { existsSync } from 'node:fs';
import { chmod, readFile, stat } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionFilePath } from '../../connection/session-file.ts';
import { expectOk, expectOneLineError, listData } from '../../test-support/expect.ts';
import { makeTempHome, runSvc, type CliResult, type TempHome } from '../../test-support/harness.ts';
import { appCreate } from '../../test-support/tenant-home.ts';
import { startServer, type RunningServer } from '../../test-support/running-server.ts';

/**
 * `svc auth login/status/logout` against a real `svc start` on 127.0.0.1 port 0, and the data
 * commands with --server acting as the signed-in member.
 */

const PASSWORD = 'correct horse battery staple';

let home: TempHome;
let server: RunningServer;
let acme: string;

const svc = (args: string[], stdin = '') => runSvc(args, { env: home.env(), stdin });

function expectNoToken(result: CliResult, token: string): void {
  expect(result.stdout).not.toContain(token);
  expect(result.stderr).not.toContain(token);
}

beforeAll(async () => {
  home = await makeTempHome();
  server = await startServer(home.env());
  // Through the server (operator): a tenant whose owner has a password to sign in with.
  const created = await svc(
    [
      'tenant',
      'create',
      '--name',
      'Acme',
      '--owner-email',
      'ada@example.test',
      '--owner-password-stdin',
      '--json',
    ],
    `${PASSWORD}\n`,
  );
  expectOk(created);
  acme = (JSON.parse(created.stdout) as { tenant: { id: string } }).tenant.id;
}, 120_000);

afterAll(async () => {
  expect(await server.stop()).toBe(0);
  await home.cleanup();
});

describe('svc auth', () => {
  it('signs in, acts as the member through --server, says who, and signs out server-side', async () => {
    const file = sessionFilePath(home.dir);
    expectOneLineError(await svc(['auth', 'status']), 4, /not signed in/);
    expectOneLineError(
      await svc(['auth', 'login', '--email', 'ada@example.test', '--password-stdin']),
      2,
      /--server/,
    );

    const wrong = await svc(
      ['auth', 'login', '--server', server.url, '--email', 'ada@example.test', '--password-stdin'],
      'not the password\n',
    );
    expectOneLineError(wrong, 4);
    expect(existsSync(file)).toBe(false);

    const login = await svc(
      ['auth', 'login', '--server', server.url, '--email', 'ada@example.test', '--password-stdin'],
      `${PASSWORD}\n`,
    );
    expectOk(login);
    expect(login.stdout).toMatch(new RegExp(`^Signed in to ${server.url} as ada@example.test \\(until `));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const { token } = JSON.parse(await readFile(file, 'utf8')) as { token: string };
    expect(token.length).toBeGreaterThan(20);
    expectNoToken(login, token);

    const status = await svc(['auth', 'status']);
    expectOk(status);
    expect(status.stdout).toContain(`Server\t${server.url}\n`);
    expect(status.stdout).toContain('Signed in as\tada@example.test\n');
    expect(status.stdout).toContain(`Tenants\t${acme} (Acme)\n`);
    expectNoToken(status, token);
    const statusJson = JSON.parse((await svc(['auth', 'status', '--json'])).stdout) as Record<
      string,
      unknown
    >;
    expect(Object.keys(statusJson)).toEqual(['server', 'email', 'expires_at', 'tenants']);

    // --server without an API key: the session, in the member's only tenant, with its role's rights.
    const remote = ['--server', server.url];
    const created = await svc([...appCreate('Shop', 'private', 'token:read').args, ...remote]);
    expectOk(created);
    const listed = await svc(['app', 'list', ...remote, '--json']);
    expectOk(listed);
    expect(listData<{ name: string }>(listed.stdout).map((a) => a.name)).toContain('Shop');
    // Members manage; token data is for applications.
    expectOneLineError(await svc(['token', 'list', ...remote]), 4, /token:read/);
    const where = await svc(['status', ...remote]);
    expect(where.stdout).toContain('Signed in as\tada@example.test\n');
    expectNoToken(where, token);
    // A member is no operator: vault-wide actions stay refused.
    expectOneLineError(
      await svc(['tenant', 'create', ...remote, '--name', 'Other', '--owner-email', 'x@example.test']),
      4,
    );

    const logout = await svc(['auth', 'logout']);
    expectOk(logout);
    expect(logout.stdout).toBe(`Signed out of ${server.url} (ada@example.test)\n`);
    expect(existsSync(file)).toBe(false);
    // Ended on the server, not only forgotten here.
    const after = await fetch(`${server.url}/tenants`, { headers: { authorization: `Bearer ${token}` } });
    expect(after.status).toBe(401);
    expect((await svc(['auth', 'logout'])).stdout).toBe('Not signed in.\n');
    expectOneLineError(await svc(['token', 'list', ...remote]), 4, /SVC-API-KEY/);
  }, 120_000);

  it('refuses a session file others can read, and logout still ends it', async () => {
    expectOk(
      await svc(
        [
          'auth',
          'login',
          '--server',
          server.url,
          '--email',
          'ada@example.test',
          '--password-stdin',
          '--json',
        ],
        `${PASSWORD}\n`,
      ),
    );
    const file = sessionFilePath(home.dir);
    await chmod(file, 0o644);
    expectOneLineError(await svc(['auth', 'status']), 2, /readable by other users/);
    expectOneLineError(await svc(['token', 'list', '--server', server.url]), 2, /readable by other users/);
    const logout = await svc(['auth', 'logout', '--json']);
    expectOk(logout);
    expect(JSON.parse(logout.stdout)).toEqual({
      server: server.url,
      email: 'ada@example.test',
      signed_out: true,
    });
    expect(existsSync(file)).toBe(false);
  }, 120_000);
});
