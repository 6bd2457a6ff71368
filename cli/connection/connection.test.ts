import { writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listData } from '../test-support/expect.ts';
import { deadPid } from '../../core/test-support/dead-pid.ts';
import { makeTempHome, runSvc, type TempHome } from '../test-support/harness.ts';
import { startServer } from '../test-support/running-server.ts';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(() => home.cleanup());

describe('svc status and the choice of connection', () => {
  it('a stale lock from a killed server: status says so, and commands open the vault themselves', async () => {
    const server = await startServer(home.env(), ['start', '--port', '0', '--json']);
    expect(await server.stop()).toBe(0);
    const vaultPath = path.join(home.dir, 'vault.svc');
    // What a killed server leaves: its lock naming its URL, and its credential file.
    await writeFile(
      path.join(home.dir, 'vault.lock'),
      JSON.stringify({
        pid: deadPid(),
        host: hostname(),
        startedAt: new Date().toISOString(),
        url: server.url,
      }),
      { mode: 0o600 },
    );
    await writeFile(path.join(home.dir, 'vault.operator'), 'left behind\n', { mode: 0o600 });

    const status = await runSvc(['status', '--json'], { env: home.env() });
    expect(status.code).toBe(0);
    const report = JSON.parse(status.stdout) as { mode: string; locked_by: string; vault_path: string };
    expect(report.mode).toBe('in-process');
    expect(report.vault_path).toBe(vaultPath);
    expect(report.locked_by).toMatch(/stale/);

    const listed = await runSvc(['tenant', 'list', '--json'], { env: home.env() });
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
    expect(listData<unknown>(listed.stdout).length).toBe(1);
  }, 120_000);

  it('while a server runs: status names it; restore says to stop it; --server with a key goes by what the key may do', async () => {
    const server = await startServer(home.env(), ['start', '--port', '0', '--json']);
    try {
      const status = await runSvc(['status'], { env: home.env() });
      expect(status.code).toBe(0);
      expect(status.stdout).toContain(`Server\t${server.url}`);
      expect(status.stdout).toMatch(/Mode\tthrough the server holding the vault/);
      expect(status.stdout).toMatch(/Locked by\tprocess \d+/);

      const restore = await runSvc(['vault', 'restore', path.join(home.dir, 'nothing.svc'), '--force'], {
        env: home.env(),
      });
      expect(restore.code).toBe(4);
      expect(restore.stderr).toContain(`serving ${server.url}`);
      expect(restore.stderr).toMatch(/stop that server first/);

      // The management key makes a private application over --server, then a token with its key.
      const remote = (...args: string[]) =>
        runSvc(['--server', server.url, ...args], { env: home.env({ SVC_API_KEY: server.apiKey }) });
      const created = await remote(
        'app',
        'create',
        '--name',
        'Back end',
        '--type',
        'private',
        '--permission',
        'token:create',
        '--permission',
        'token:read',
        '--json',
      );
      expect(created.stderr).toBe('');
      expect(created.code).toBe(0);
      const privateKey = (JSON.parse(created.stdout) as { key: string }).key;

      const asPrivate = (...args: string[]) =>
        runSvc(['--server', server.url, '--api-key', privateKey, ...args], { env: home.env() });
      const token = await asPrivate(
        'token',
        'create',
        '--type',
        'token',
        '--data',
        '"remote data"',
        '--json',
      );
      expect(token.code).toBe(0);
      const listed = await asPrivate('token', 'list', '--json');
      expect(listed.code).toBe(0);
      expect(listed.stdout).toContain((JSON.parse(token.stdout) as { id: string }).id);

      // The server enforces the key's permissions: a private key cannot create applications.
      const refused = await asPrivate(
        'app',
        'create',
        '--name',
        'X',
        '--type',
        'private',
        '--permission',
        'token:read',
      );
      expect(refused.code).toBe(4);
      expect(refused.stderr).toMatch(/^svc: /);
      expect(refused.stdout).toBe('');
      // Without a key the server answers 401: exit 4 as well, and no key is echoed anywhere.
      const anonymous = await runSvc(['--server', server.url, 'token', 'list'], { env: home.env() });
      expect(anonymous.code).toBe(4);
      expect(anonymous.stderr).not.toContain(privateKey);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, 180_000);
});
