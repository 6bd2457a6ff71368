import { existsSync } from 'node:fs';
import { stat, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from './listen.ts';
import { OPERATOR_HEADER, operatorCredentialPath, readOperatorCredential } from './operator-credential.ts';
import { captureLogs } from './test-support/log-capture.ts';
import { createTempVault, type TempVault } from '../core/test-support/temp-vault.ts';

let temp: TempVault;
const running: RunningServer[] = [];

beforeEach(async () => {
  temp = await createTempVault();
});

afterEach(async () => {
  for (const server of running.splice(0)) await server.close();
  await temp.dispose();
});

async function start(): Promise<RunningServer> {
  const server = await startServer(temp.vault, {
    host: '127.0.0.1',
    port: 0,
    sweepIntervalMs: false,
    logger: captureLogs().logger,
  });
  running.push(server);
  return server;
}

function vaultStatus(server: RunningServer, credential: string): Promise<Response> {
  return fetch(`${server.url}/operator/vault/status`, { headers: { [OPERATOR_HEADER]: credential } });
}

describe('the operator credential', () => {
  it('is written beside the lock, readable by its owner only, and opens the operator routes', async () => {
    const server = await start();
    const path = operatorCredentialPath(temp.vault.path);
    expect(path).toBe(temp.vault.path.replace(/\.svc$/, '') + '.operator');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const credential = await readOperatorCredential(temp.vault.path);
    expect(credential).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const response = await vaultStatus(server, credential ?? '');
    expect(response.status).toBe(200);
    expect(((await response.json()) as { path: string }).path).toBe(temp.vault.path);
  });

  it('refuses a wrong credential, and API keys on operator routes', async () => {
    const server = await start();
    expect((await vaultStatus(server, 'not the credential')).status).toBe(401);
    const noCredential = await fetch(`${server.url}/operator/vault/status`);
    expect(noCredential.status).toBe(401);
  });

  it('is refused from an address other than loopback', async () => {
    const server = await start();
    const credential = (await readOperatorCredential(temp.vault.path)) ?? '';
    const statusFrom = (remoteAddress: string) =>
      server.app.inject({
        method: 'GET',
        url: '/operator/vault/status',
        remoteAddress,
        headers: { [OPERATOR_HEADER]: credential },
      });
    const response = await statusFrom('192.0.2.10');
    expect(response.statusCode).toBe(403);
    expect(response.body).toContain('loopback');
    // The same request from loopback is admitted: only the address differed.
    expect((await statusFrom('127.0.0.1')).statusCode).toBe(200);
  });

  it('is gone after a clean shutdown and new at the next start: the old one is refused', async () => {
    const first = await start();
    const old = (await readOperatorCredential(temp.vault.path)) ?? '';
    await first.close();
    expect(existsSync(operatorCredentialPath(temp.vault.path))).toBe(false);
    expect(await readOperatorCredential(temp.vault.path)).toBeNull();

    const second = await start();
    const fresh = (await readOperatorCredential(temp.vault.path)) ?? '';
    expect(fresh).not.toBe(old);
    expect((await vaultStatus(second, old)).status).toBe(401);
    expect((await vaultStatus(second, fresh)).status).toBe(200);
  });

  it('replaces the file a killed server left behind', async () => {
    const path = operatorCredentialPath(temp.vault.path);
    await writeFile(path, 'left by a killed server\n', { mode: 0o644 });
    const server = await start();
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await vaultStatus(server, 'left by a killed server')).status).toBe(401);
  });

  it('acts in the tenant named by SVC-TENANT-ID, which must exist', async () => {
    const server = await start();
    const credential = (await readOperatorCredential(temp.vault.path)) ?? '';
    const created = await fetch(`${server.url}/operator/tenants`, {
      method: 'POST',
      headers: { [OPERATOR_HEADER]: credential, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Acme', owner_email: 'owner@example.test' }),
    });
    expect(created.status).toBe(201);
    const { tenant } = (await created.json()) as { tenant: { id: string } };

    const self = await fetch(`${server.url}/tenants/self`, {
      headers: { [OPERATOR_HEADER]: credential, 'svc-tenant-id': tenant.id },
    });
    expect(self.status).toBe(200);
    const missing = await fetch(`${server.url}/tenants/self`, {
      headers: { [OPERATOR_HEADER]: credential, 'svc-tenant-id': '00000000-0000-4000-8000-000000000000' },
    });
    expect(missing.status).toBe(404);
    const unnamed = await fetch(`${server.url}/tenants/self`, { headers: { [OPERATOR_HEADER]: credential } });
    expect(unnamed.status).toBe(400);
  });
});
