import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isVaultError } from '../core/errors/catalogue.ts';
import { isLoopbackHost, startServer, type RunningServer } from './listen.ts';
import { captureLogs } from './test-support/log-capture.ts';
import { createTempVault, type TempVault } from '../core/test-support/temp-vault.ts';

/**
 * Whether this host can bind ::1 at all (a plain socket, before any vault code runs). Only the
 * errors of a host without IPv6 loopback count as "unavailable"; any other error is a failure.
 */
async function ipv6LoopbackAvailable(): Promise<boolean> {
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen(0, '::1', resolve);
    });
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRNOTAVAIL' || code === 'EAFNOSUPPORT') return false;
    throw error;
  } finally {
    if (probe.listening) await new Promise((resolve) => probe.close(resolve));
  }
}

const HAS_IPV6_LOOPBACK = await ipv6LoopbackAvailable();

let temp: TempVault;
const running: RunningServer[] = [];

async function start(host: string, port = 0, allowRemote = false): Promise<RunningServer> {
  const server = await startServer(temp.vault, { host, port, allowRemote, logger: captureLogs().logger });
  running.push(server);
  return server;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('startServer', () => {
  beforeEach(async () => {
    temp = await createTempVault();
  });

  afterEach(async () => {
    for (const server of running.splice(0)) await server.close();
    await temp.dispose();
  });

  it('listens on 127.0.0.1, any free port, and answers over real HTTP', async () => {
    const server = await start('127.0.0.1');
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.url).not.toMatch(/:0$/);
    expect(server.warnings).toEqual([]);

    const response = await fetch(`${server.url}/healthz/`, { headers: { 'SVC-TRACE-ID': 'over-the-wire' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('svc-trace-id')).toBe('over-the-wire');
    expect(await response.json()).toEqual({ status: 'ok' });

    const missing = await fetch(`${server.url}/missing`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('records its URL in the vault lock and clears it on close', async () => {
    const server = await start('127.0.0.1');
    expect((await temp.vault.status()).lock_holder?.url).toBe(server.url);

    await server.close();
    await server.close(); // idempotent
    expect((await temp.vault.status()).lock_holder?.url).toBeUndefined();
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  });

  it('leaves the vault open for its owner', async () => {
    const server = await start('127.0.0.1');
    await server.close();
    await temp.vault.transaction(async (trx) => {
      await trx.insertInto('vault_meta').values({ key: 'after-server', value: '1' }).execute();
    });
  });

  it('leaves no lock file when the owner closes the vault before the server', async () => {
    const server = await start('127.0.0.1');
    await temp.vault.close();
    await server.close();
    expect(existsSync(join(temp.dir, 'vault.lock'))).toBe(false);
  });

  it.skipIf(!HAS_IPV6_LOOPBACK)(
    'listens on ::1 with a bracketed URL (skipped where the host has no IPv6 loopback)',
    async () => {
      const server = await start('::1');
      expect(server.url).toMatch(/^http:\/\/\[::1\]:\d+$/);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    },
  );

  it('refuses a non-loopback host unless remote access is allowed', async () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.10', 'example.com']) {
      const error = await rejection(start(host));
      expect(isVaultError(error, 'USAGE')).toBe(true);
      expect((error as Error).message).toMatch(/only loopback/);
    }
    // Nothing was bound and the lock has no URL.
    expect((await temp.vault.status()).lock_holder?.url).toBeUndefined();
  });

  it('binds a wildcard address with allowRemote, warns, and advertises a local URL', async () => {
    const server = await start('0.0.0.0', 0, true);
    expect(server.warnings).toHaveLength(1);
    expect(server.warnings[0]).toMatch(/reachable from other machines/);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('reports a port in use as a usage error', async () => {
    const first = await start('127.0.0.1');
    const port = Number(new URL(first.url).port);
    const error = await rejection(start('127.0.0.1', port));
    expect(isVaultError(error, 'USAGE')).toBe(true);
    expect((error as Error).message).toMatch(/already in use/);
    // The failed start did not take over the lock URL.
    expect((await temp.vault.status()).lock_holder?.url).toBe(first.url);
  });

  it('rejects an invalid port', async () => {
    for (const port of [-1, 65_536, 1.5, Number.NaN]) {
      expect(isVaultError(await rejection(start('127.0.0.1', port)), 'USAGE')).toBe(true);
    }
  });
});

describe('isLoopbackHost', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '::1',
    '[::1]',
    '0:0:0:0:0:0:0:1',
    '::ffff:127.0.0.1',
    'localhost',
    'LOCALHOST',
  ])('accepts %s', (host) => expect(isLoopbackHost(host)).toBe(true));

  it.each([
    '0.0.0.0',
    '::',
    '10.0.0.1',
    '128.0.0.1',
    '::ffff:10.0.0.1',
    'example.com',
    'localhost.example.com',
    '',
  ])('refuses %s', (host) => expect(isLoopbackHost(host)).toBe(false));
});
