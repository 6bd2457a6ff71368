import { alterAuditEntry } from '../core/test-support/audit-tamper.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readKeyFile } from '../core/crypto/root-key.ts';
import { openVault } from '../core/vault/index.ts';
import { api, stop, svc, svcServe } from './support.ts';

/**
 * Identity and access as a user walks it: the CLI makes tenants and keys, a real
 * server answers over HTTP, the audit log verifies, and a changed entry is caught.
 */
describe('identity and access, end to end', () => {
  let home: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'svc-e2e-'));
    env = { SVC_HOME: home, SVC_LOG_LEVEL: 'warn' };
  });
  afterAll(() => rm(home, { recursive: true, force: true }));

  it('manages applications, enforces container rules and tenants, and keeps a verifiable log', async () => {
    expect((await svc(['init'], env)).code).toBe(0);
    const acme = await svc(
      ['tenant', 'create', '--name', 'Acme', '--owner-email', 'owner@acme.test', '--json'],
      env,
    );
    expect(acme.code, acme.stderr).toBe(0);
    const acmeCreated = JSON.parse(acme.stdout) as { tenant: { id: string }; application: { key: string } };
    const other = await svc(
      ['tenant', 'create', '--name', 'Other', '--owner-email', 'owner@other.test', '--json'],
      env,
    );
    const otherCreated = JSON.parse(other.stdout) as { tenant: { id: string }; application: { key: string } };
    const management = acmeCreated.application.key;

    const server = await svcServe(['serve', '--port', '0'], env);
    let privateAppId: string;
    try {
      // The management key from `svc tenant create` manages applications.
      const created = await api(server.url, 'POST', '/applications', {
        key: management,
        body: {
          name: 'PCI reader',
          type: 'private',
          rules: [
            {
              description: 'cards only',
              priority: 1,
              container: '/pci/',
              permissions: ['token:create', 'token:read'],
              transform: 'reveal',
            },
          ],
        },
      });
      expect(created.status).toBe(201);
      const privateApp = created.body as { id: string; key: string };
      privateAppId = privateApp.id;
      expect(
        (await api(server.url, 'GET', `/applications/${privateApp.id}`, { key: management })).status,
      ).toBe(200);

      // A private key with a container-scoped rule works inside its container and is refused outside.
      const card = await api(server.url, 'POST', '/tokens', {
        key: privateApp.key,
        body: { type: 'card_number', data: '4242424242424242' },
      });
      expect(card.status).toBe(201);
      const outside = await api(server.url, 'POST', '/tokens', {
        key: privateApp.key,
        body: { type: 'token', data: 'not a card' },
      });
      expect(outside.status).toBe(403);
      const read = await api(server.url, 'GET', `/tokens/${(card.body as { id: string }).id}`, {
        key: privateApp.key,
      });
      expect((read.body as { data: string }).data).toBe('4242424242424242');

      // Another tenant's key sees none of this tenant's ids.
      const foreign = await api(server.url, 'GET', `/applications/${privateApp.id}`, {
        key: otherCreated.application.key,
      });
      expect(foreign.status).toBe(404);

      // The log lists what happened.
      const logs = await api(server.url, 'GET', '/logs?entity_type=application', { key: management });
      const entries = (logs.body as { data: Array<{ entity_id: string; operation: string }> }).data;
      expect(entries.some((e) => e.entity_id === privateApp.id && e.operation === 'create')).toBe(true);
    } finally {
      expect(await stop(server.child)).toBe(0);
    }

    const verified = await svc(['logs', 'verify'], env);
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(/^ok: /);

    // Change one entry on disk with the key at hand.
    const key = await readKeyFile(join(home, 'vault.key'));
    const vault = await openVault({ path: join(home, 'vault.svc'), key: { kind: 'key', key } });
    // Wherever the vault keeps the entry: the table, or (after a close) a segment file.
    for await (const entry of vault.audit.entries(acmeCreated.tenant.id)) {
      if (entry.entity_id === privateAppId && entry.operation === 'create') {
        await alterAuditEntry(vault, entry.id, { message: 'Nothing happened here' });
        break;
      }
    }
    await vault.close();

    const broken = await svc(['logs', 'verify'], env);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain('broken');
    expect(broken.stdout).toContain(acmeCreated.tenant.id);
  }, 120_000);
});
