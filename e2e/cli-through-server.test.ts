import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHORT_LIVED, SVC_BIN, api, stop, svc, svcServe } from './support.ts';

/**
 * The CLI while `svc start` holds the vault, all real processes: data commands go through the
 * server (found in the lock, signed in with the operator credential beside it), their effects are
 * visible through the API at once, and `--server` with an API key lists what that key may read.
 */
describe('the CLI through a running server, end to end', () => {
  let home: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'svc-e2e-cli-server-'));
    env = { SVC_HOME: home, SVC_LOG_LEVEL: 'warn' };
  });
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('tenant, tokenize, search, invitation, logs --follow and backup work while the server runs', async () => {
    const server = await svcServe(['start', '--port', '0'], env);
    try {
      expect(existsSync(join(home, 'vault.operator'))).toBe(true);

      const created = await svc(
        ['tenant', 'create', '--name', 'Acme', '--owner-email', 'o@acme.test', '--json'],
        env,
      );
      expect(created.code, created.stderr).toBe(0);
      const { tenant, application } = JSON.parse(created.stdout) as {
        tenant: { id: string };
        application: { key: string };
      };
      // Visible through the API at once, with the new tenant's own key.
      const self = await api(server.url, 'GET', '/tenants/self', { key: application.key });
      expect(self.status).toBe(200);
      expect((self.body as { id: string }).id).toBe(tenant.id);

      const app = await svc(
        [
          'app',
          'create',
          '--tenant',
          'Acme',
          '--name',
          'Reader',
          '--type',
          'private',
          '--permission',
          'token:read',
          '--json',
        ],
        env,
      );
      expect(app.code, app.stderr).toBe(0);
      const readerKey = (JSON.parse(app.stdout) as { key: string }).key;

      // `svc logs --follow` in its own process prints what the next commands write.
      const follower = spawn(
        process.execPath,
        [...SHORT_LIVED, SVC_BIN, 'logs', '--tenant', 'Acme', '--follow', '--json'],
        {
          env: { PATH: process.env.PATH ?? '', HOME: home, ...env },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let followed = '';
      // Resolved at the write that prints `text`, not found by polling.
      const seen: Array<{ text: string; done: () => void }> = [];
      follower.stdout.on('data', (chunk: Buffer) => {
        followed += chunk.toString();
        for (const wait of seen) if (followed.includes(wait.text)) wait.done();
      });
      const printed = (text: string, timeoutMs: number) =>
        new Promise<void>((resolve) => {
          if (followed.includes(text)) return resolve();
          const timer = setTimeout(resolve, timeoutMs);
          seen.push({ text, done: () => (clearTimeout(timer), resolve()) });
        });
      try {
        const tokenized = await svc(['tokenize', '--tenant', 'Acme', '{"card":"4242 4242 4242 4242"}'], env);
        expect(tokenized.code, tokenized.stderr).toBe(0);
        const tokenId = (JSON.parse(tokenized.stdout) as { card: string }).card;
        const fromApi = await api(server.url, 'GET', `/tokens/${encodeURIComponent(tokenId)}`, {
          key: readerKey,
        });
        expect(fromApi.status).toBe(200);

        const search = await svc(['token', 'search', '--tenant', 'Acme', 'type:token', '--json'], env);
        expect(search.code, search.stderr).toBe(0);
        expect(search.stdout).toContain(tokenId);

        const invited = await svc(
          ['invitation', 'create', '--tenant', 'Acme', '--email', 'new@acme.test', '--json'],
          env,
        );
        expect(invited.code, invited.stderr).toBe(0);
        const invitations = await api(server.url, 'GET', '/tenants/self/invitations', {
          key: application.key,
        });
        expect(JSON.stringify(invitations.body)).toContain('new@acme.test');

        await printed(tokenId, 30_000);
        expect(followed).toContain(tokenId);
      } finally {
        await stop(follower);
      }

      const backupFile = join(home, 'backup.svc');
      const backup = await svc(['vault', 'backup', backupFile, '--json'], env);
      expect(backup.code, backup.stderr).toBe(0);
      expect(existsSync(backupFile)).toBe(true);

      // Any server, by URL and key: the reader's key lists the tokens it may read.
      const remote = await svc(['--server', server.url, '--api-key', readerKey, 'token', 'list', '--json'], {
        SVC_HOME: join(home, 'elsewhere'),
      });
      expect(remote.code, remote.stderr).toBe(0);
      expect(remote.stdout).toContain('"total_items":1');
    } finally {
      expect(await stop(server.child)).toBe(0);
    }
    // A clean shutdown removes the credential.
    expect(existsSync(join(home, 'vault.operator'))).toBe(false);
  }, 240_000);
});
