import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServices } from '../core/services.ts';
import { faultyFs } from '../core/storage/test-support/faulty-fs.ts';
import type { Fault } from '../core/storage/test-support/faulty-fs.ts';
import { FAST_KDF } from '../core/test-support/temp-vault.ts';
import { createVault } from '../core/vault/index.ts';
import type { VaultHandle } from '../core/vault/types.ts';
import { buildServer } from './app.ts';
import type { VaultServer } from './types.ts';
import { captureLogs } from './test-support/log-capture.ts';

let dir: string;
let vault: VaultHandle;
let app: VaultServer;
let fault: Fault | null;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-health-test-'));
  fault = null;
  vault = await createVault({
    path: join(dir, 'vault.svc'),
    key: { kind: 'key', key: randomBytes(32) },
    fs: faultyFs(() => fault),
  });
  const services = createServices(vault, { passwordKdf: FAST_KDF });
  app = await buildServer(vault, { services, logger: captureLogs().logger });
});

afterEach(async () => {
  await app.close();
  await vault.close().catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
});

describe('GET /healthz', () => {
  it('answers ok without authentication, and shows neither the vault id nor the commit counter', async () => {
    const response = await app.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json()).toEqual({ status: 'ok' });
    expect(response.body).not.toContain(vault.id);
  });

  it('answers 503 once a full disk made the vault fail', async () => {
    fault = (op, path) => (op === 'write' && path.endsWith('.journal') ? 'ENOSPC' : null);
    const err = await vault
      .transaction(async (trx) => {
        await trx.insertInto('vault_meta').values({ key: 'health-test', value: '1' }).execute();
      })
      .catch((e: unknown) => e);
    expect((err as Error).message).toContain('The disk is full (ENOSPC)');
    fault = null;
    const response = await app.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toEqual({ status: 'failed' });
  });
});
