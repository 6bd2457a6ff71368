import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServices } from '../../core/services.ts';
import { faultyFs } from '../../core/backends/embedded/test-support/faulty-fs.ts';
import type { Fault } from '../../core/backends/embedded/test-support/faulty-fs.ts';
import { createTempVault, FAST_KDF, type TempVault } from '../../core/test-support/temp-vault.ts';
import type { VaultHandle } from '../../core/vault/types.ts';
import { buildServer } from '../app.ts';
import type { VaultServer } from '../types.ts';
import { captureLogs } from '../test-support/log-capture.ts';

let temp: TempVault;
let vault: VaultHandle;
let app: VaultServer;
let fault: Fault | null;

beforeEach(async () => {
  fault = null;
  temp = await createTempVault({ fs: faultyFs(() => fault) });
  vault = temp.vault;
  const services = createServices(vault, { passwordKdf: FAST_KDF });
  app = await buildServer(vault, { services, logger: captureLogs().logger });
});

afterEach(async () => {
  await app.close();
  await temp.dispose().catch(() => undefined);
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
