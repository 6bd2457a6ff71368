import { readFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listData } from '../../test-support/expect.ts';
import { run } from '../../main.ts';
import { makeTempHome, makeTestIo, runSvc, type TempHome } from '../../test-support/harness.ts';
import { startServer } from '../../test-support/running-server.ts';
import { initHome } from '../../test-support/tenant-home.ts';

/** `svc start` in-process on port 0: the embedded default's first and later runs. */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(() => home.cleanup());

describe('svc start', () => {
  it('a first start on a port in use exits 1 naming --port and SVC_PORT, and loses no key', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const { port } = busy.address() as AddressInfo;
    try {
      const failed = await runSvc(['start', '--port', String(port)], { env: home.env() });
      expect(failed.code).toBe(1);
      expect(failed.stdout).toBe('');
      expect(failed.stderr).toMatch(
        new RegExp(
          `svc: Port ${port} on 127\\.0\\.0\\.1 is already in use; choose another with --port <n> or SVC_PORT`,
        ),
      );
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
    // Nothing was bootstrapped, so the next start makes the tenant and shows its key.
    const next = await startServer(home.env(), ['start', '--port', '0']);
    expect(await next.stop()).toBe(0);
    expect(next.io.stdout()).toMatch(/^Management API key \(shown once\): key_\S+$/m);
  });

  it('first run creates everything and shows the key once; later runs do not', async () => {
    const first = await startServer(home.env(), ['start', '--port', '0']);
    try {
      expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const health = await fetch(`${first.url}/healthz`);
      expect(health.status).toBe(200);
      // The console's one-time link: the default owner has no password yet (no terminal), so the
      // console is asked to claim it (and the link stays usable).
      const link = /^Console \(one-time sign-in link, valid 5 minutes\): (\S+)$/m.exec(
        first.io.stdout(),
      )?.[1];
      expect(link).toMatch(new RegExp(`^${first.url}/console/#svco_`));
      const exchange = await fetch(`${first.url}/console/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ secret: link?.split('#')[1] }),
      });
      expect(exchange.status).toBe(400);
      expect(((await exchange.json()) as { errors: object }).errors).toHaveProperty('owner');
    } finally {
      expect(await first.stop()).toBe(0);
    }
    const firstOut = first.io.stdout();
    const lines = firstOut.trimEnd().split('\n');
    expect(lines[0]).toBe(`URL: ${first.url}`);
    const apiKey = /^Management API key \(shown once\): (key_\S+)$/m.exec(firstOut)?.[1];
    expect(apiKey).toBeDefined();
    expect(first.io.stderr()).toContain(`Created vault at ${path.join(home.dir, 'vault.svc')}`);
    const keyFileText = (await readFile(path.join(home.dir, 'vault.key'), 'utf8')).trim();
    expect(firstOut + first.io.stderr()).not.toContain(keyFileText);

    // The clean stop released the lock.
    const status = await runSvc(['vault', 'status', '--json'], { env: home.env() });
    expect(JSON.parse(status.stdout)).toMatchObject({ lock_holder: null });

    const second = await startServer(home.env(), ['start', '--port', '0']);
    try {
      expect((await fetch(`${second.url}/healthz`)).status).toBe(200);
    } finally {
      expect(await second.stop()).toBe(0);
    }
    const secondOut = second.io.stdout();
    expect(secondOut).not.toContain('key_');
    expect(secondOut).not.toContain(apiKey);
    expect(secondOut).toContain('svc app regenerate <application-id>');
    const apps = await runSvc(['app', 'list', '--json'], { env: home.env() });
    const [app] = listData<{ id: string; type: string; tenant_id: string }>(apps.stdout);
    expect(app?.type).toBe('management');
    expect(secondOut).toContain(
      `Application: ${app?.id} (Management, management) in tenant ${app?.tenant_id}`,
    );

    // The way to a new key that the second start pointed at.
    const regenerated = await runSvc(['app', 'regenerate', app?.id ?? '', '--yes', '--json'], {
      env: home.env(),
    });
    expect(regenerated.code).toBe(0);
    expect(JSON.parse(regenerated.stdout)).toMatchObject({
      id: app?.id,
      key: expect.stringMatching(/^key_/),
    });
    const unknown = await runSvc(['app', 'regenerate', 'no-such-app', '--yes'], { env: home.env() });
    expect(unknown.code).toBe(1);
  });

  it('the Default tenant gets an owner: the documented address without a password, claimed with svc user passwd while it serves', async () => {
    const first = await startServer(home.env(), ['start', '--port', '0']);
    try {
      expect(first.io.stdout()).toContain(
        'Tenant owner: owner@vault.localhost (no password yet; to claim it, run: npx svc user passwd owner@vault.localhost)',
      );
      // As printed, while the server runs: through its operator route.
      const claimed = await runSvc(['user', 'passwd', 'owner@vault.localhost', '--password-stdin'], {
        env: home.env(),
        stdin: 'claimed owner password',
      });
      expect(claimed.code, claimed.stderr).toBe(0);
      expect(claimed.stdout).toBe('Password set for owner@vault.localhost\n');
      // A password that breaks a rule is refused with the rule, as in-process.
      const weak = await runSvc(['user', 'passwd', 'owner@vault.localhost', '--password-stdin'], {
        env: home.env(),
        stdin: 'short',
      });
      expect(weak.code).toBe(2);
      expect(weak.stderr).toMatch(/^svc: invalid input: password: /);
      const unknown = await runSvc(['user', 'passwd', 'nobody@example.test', '--password-stdin'], {
        env: home.env(),
        stdin: 'some long password',
      });
      expect(unknown.stderr).toBe('svc: no user with the e-mail nobody@example.test\n');

      const login = await fetch(`${first.url}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'owner@vault.localhost', password: 'claimed owner password' }),
      });
      expect(login.status).toBe(200);
      const { token } = (await login.json()) as { token: string };
      const tenants = (await (
        await fetch(`${first.url}/tenants`, { headers: { authorization: `Bearer ${token}` } })
      ).json()) as Array<{ id: string; name: string; owner_id: string | null }>;
      expect(tenants).toHaveLength(1);
      expect(tenants[0]).toMatchObject({ name: 'Default', owner_id: expect.any(String) });
    } finally {
      expect(await first.stop()).toBe(0);
    }
  });

  it('on a terminal the first start asks for the owner e-mail and password', async () => {
    const io = makeTestIo({
      env: home.env(),
      isTTY: true,
      answers: ['ada@example.com', 'owner password 123', 'owner password 123'],
    });
    const exit = run(['start', '--port', '0'], io.deps);
    await io.waitForStdout((text) => text.includes('Tenant owner: '));
    io.shutdown('SIGTERM');
    expect(await exit).toBe(0);
    expect(io.stdout()).toContain('Tenant owner: ada@example.com\n');
  });

  it('--json prints one object; while it runs, other commands go through it', async () => {
    const running = await startServer(home.env(), ['start', '--port', '0', '--json']);
    try {
      const info = JSON.parse(running.io.stdout().split('\n')[0] ?? '') as Record<string, unknown>;
      expect(info).toMatchObject({ url: running.url, api_key: expect.stringMatching(/^key_/) });

      const status = await runSvc(['vault', 'status', '--json'], { env: home.env() });
      expect(status.code).toBe(0);
      expect(JSON.parse(status.stdout)).toMatchObject({
        lock_holder: { pid: process.pid, url: running.url },
      });

      // The vault file is held, so commands go through the server that holds it.
      const apps = await runSvc(['app', 'list', '--json'], { env: home.env() });
      expect(apps.stderr).toBe('');
      expect(apps.code).toBe(0);
      expect(listData(apps.stdout)).toHaveLength(1);

      const backup = await runSvc(['vault', 'backup', path.join(home.dir, 'live.bak')], { env: home.env() });
      expect(backup.code).toBe(0);
    } finally {
      expect(await running.stop()).toBe(0);
    }
  });
});

describe('svc serve', () => {
  it('never creates a vault', async () => {
    const result = await runSvc(['serve', '--port', '0'], { env: home.env() });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^svc: no vault at/);
  });

  it('refuses a non-loopback address without --allow-remote, before touching the vault', async () => {
    const result = await runSvc(['serve', '--host', '0.0.0.0', '--port', '0'], { env: home.env() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^svc: refusing to listen on 0\.0\.0\.0[^\n]*--allow-remote[^\n]*\n$/);
  });

  it('serves an existing vault and warns when bound to every interface', async () => {
    await initHome(home);
    const running = await startServer(home.env(), [
      'serve',
      '--host',
      '0.0.0.0',
      '--port',
      '0',
      '--allow-remote',
    ]);
    try {
      expect((await fetch(`${running.url}/healthz`)).status).toBe(200);
      expect(running.io.stderr()).toMatch(/^warning: .*0\.0\.0\.0/m);
      // serve bootstraps like start: the first server run shows the key.
      expect(running.io.stdout()).toMatch(/^Management API key \(shown once\): key_/m);
    } finally {
      expect(await running.stop()).toBe(0);
    }
  });
});
