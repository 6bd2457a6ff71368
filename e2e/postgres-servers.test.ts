import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempSchema, postgresOrSkipNotice, type TempSchema } from '../core/test-support/postgres.ts';
import { closedPort, startGate, throughPort, waitFor } from './postgres-gate.ts';
import { api, stop, svc, svcServe } from './support.ts';

const available = await postgresOrSkipNotice('e2e/postgres-servers.test.ts');

interface Token {
  id: string;
  data: unknown;
}

/**
 * Several `svc serve --database …` processes on one PostgreSQL database, all real processes: what
 * one writes the other reads, concurrent writers through both leave unique ids, one deduplicated
 * token and audit chains that verify; an unreachable database stops a start with one line (exit 3)
 * and a database gone while serving is answered with 503 problems until it is back.
 */
// Each step is a real process (about 2 s to start here), and several share two cores.
describe.skipIf(!available)(
  'several servers on one PostgreSQL database, end to end',
  { timeout: 180_000 },
  () => {
    let home: string;
    let schema: TempSchema;
    let env: Record<string, string>;
    beforeAll(async () => {
      home = await mkdtemp(join(tmpdir(), 'svc-e2e-postgres-'));
      schema = await makeTempSchema();
      env = { SVC_HOME: home, SVC_LOG_LEVEL: 'warn', SVC_DATABASE_URL: schema.url };
    });
    afterAll(async () => {
      await schema?.drop();
      await rm(home, { recursive: true, force: true });
    });

    it('svc start sets the database up, a second svc serve shares it, writes through one read through the other, concurrent writers leave no duplicates and the chains verify', async () => {
      // First run: schema, keyring (under a generated key file) and the Default tenant's management key.
      const first = await svcServe(['start', '--port', '0'], env);
      const servers = [first];
      try {
        await waitFor(
          () => /Management API key \(shown once\): (key_\S+)/.test(first.stdout()),
          () => first.stdout(),
        );
        const management = /Management API key \(shown once\): (key_\S+)/.exec(first.stdout())![1]!;
        const second = await svcServe(['serve', '--port', '0'], env);
        servers.push(second);
        // Not a first run for the second server: the database already holds the tenant.
        expect(second.stdout()).not.toContain('shown once');

        const app = await api(first.url, 'POST', '/applications', {
          key: management,
          body: { name: 'backend', type: 'private', permissions: ['token:create', 'token:read'] },
        });
        expect(app.status).toBe(201);
        const key = (app.body as { key: string }).key;

        // The key made through the first server works on the second; the token too.
        const written = await api(first.url, 'POST', '/tokens', {
          key,
          body: { type: 'token', data: 'hello' },
        });
        expect(written.status).toBe(201);
        const id = (written.body as Token).id;
        const readThere = await api(second.url, 'GET', `/tokens/${id}`, { key });
        expect(readThere.status).toBe(200);
        const readHere = await api(first.url, 'GET', `/tokens/${id}`, { key });
        expect(readThere.body).toEqual(readHere.body);

        // Concurrent writers through both servers: tokenize, and one card number deduplicated.
        const urls = [first.url, second.url];
        const tokenized = await Promise.all(
          Array.from({ length: 30 }, (_, i) =>
            api(urls[i % 2]!, 'POST', '/tokenize', { key, body: { n: `value ${i}`, m: `other ${i}` } }),
          ),
        );
        const ids = tokenized.flatMap((r) => {
          expect(r.status).toBe(200);
          const body = r.body as { n: string; m: string };
          return [body.n, body.m];
        });
        expect(new Set(ids).size).toBe(60);
        const deduplicated = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            api(urls[i % 2]!, 'POST', '/tokens', {
              key,
              body: { type: 'card_number', data: '4242424242424242', deduplicate_token: true },
            }),
          ),
        );
        const cardIds = new Set(deduplicated.map((r) => (r.body as Token).id));
        expect(cardIds.size).toBe(1);

        // Every token is there once, seen from either server.
        for (const url of urls) {
          const page = await api(url, 'GET', '/tokens?size=100', { key });
          const listed = (page.body as { data: Token[]; pagination: { total_items: number } }).data;
          expect(page.status).toBe(200);
          expect(listed.length).toBe(1 + 60 + 1);
          expect(new Set(listed.map((t) => t.id)).size).toBe(listed.length);
        }

        // The CLI opens the database beside the running servers: the chains verify.
        const verified = await svc(['logs', 'verify'], env);
        expect(verified.code, verified.stderr).toBe(0);
        expect(verified.stdout).toMatch(/^ok: \d+ entries in 1 tenant verified/);
      } finally {
        for (const server of servers) expect(await stop(server.child)).toBe(0);
      }
    });

    it('refuses to start on an unreachable database with one line and exit 3, the password never shown', async () => {
      const url = new URL(throughPort(schema.url, await closedPort()));
      url.password = 's3cret-db-password';
      const result = await svc(['serve', '--port', '0'], { ...env, SVC_DATABASE_URL: url.toString() });
      expect(result.code).toBe(3);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(
        /^svc: The database postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/test.* is unreachable \(ECONNREFUSED\)/,
      );
      expect(result.stderr).not.toContain('s3cret');
    });

    it('answers 503 problems while the database is gone, and serves again once it is back with every acknowledged write', async () => {
      // A database of its own, set up by svc init (with the key file of this home, made if missing).
      const own = await makeTempSchema();
      const target = new URL(own.url);
      const gate = await startGate({ host: target.hostname, port: Number(target.port || 5432) });
      const gated = { ...env, SVC_DATABASE_URL: throughPort(own.url, gate.port) };
      const init = await svc(['init'], gated);
      expect(init.code, init.stderr).toBe(0);
      expect(init.stdout).toContain('Set up the vault in the database postgres://');
      const server = await svcServe(['serve', '--port', '0'], gated);
      try {
        const created = await svc(
          ['tenant', 'create', '--name', 'Gated', '--owner-email', 'o@gated.test', '--json'],
          gated,
        );
        expect(created.code, created.stderr).toBe(0);
        const management = (JSON.parse(created.stdout) as { application: { key: string } }).application.key;
        const app = await api(server.url, 'POST', '/applications', {
          key: management,
          body: { name: 'backend', type: 'private', permissions: ['token:create', 'token:read'] },
        });
        const key = (app.body as { key: string }).key;
        const before = await api(server.url, 'POST', '/tokens', {
          key,
          body: { type: 'token', data: 'kept' },
        });
        expect(before.status).toBe(201);

        await gate.close();
        const during = await api(server.url, 'POST', '/tokens', {
          key,
          body: { type: 'token', data: 'lost' },
        });
        expect(during.status).toBe(503);
        expect(during.body).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
        expect(JSON.stringify(during.body)).not.toContain('postgres://');
        const reading = await api(server.url, 'GET', `/tokens/${(before.body as Token).id}`, { key });
        expect(reading.status).toBe(503);

        await gate.open();
        const after = await api(server.url, 'GET', `/tokens/${(before.body as Token).id}`, { key });
        expect(after.status).toBe(200);
        expect((after.body as Token).data).toEqual((before.body as Token).data);
        const again = await api(server.url, 'POST', '/tokens', { key, body: { type: 'token', data: 'new' } });
        expect(again.status).toBe(201);
      } finally {
        expect(await stop(server.child), server.stderr()).toBe(0);
        await gate.end();
        await own.drop();
      }
    });
    it('an embedded vault exported with svc vault export --to, served on the database, answers the same token reads, and imported back with svc vault import --from', async () => {
      const fileHome = await mkdtemp(join(tmpdir(), 'svc-e2e-export-'));
      const own = await makeTempSchema();
      const fileEnv = { SVC_HOME: fileHome, SVC_LOG_LEVEL: 'warn' };
      try {
        expect((await svc(['init'], fileEnv)).code).toBe(0);
        const tenant = await svc(
          ['tenant', 'create', '--name', 'Moved', '--owner-email', 'o@moved.test'],
          fileEnv,
        );
        expect(tenant.code, tenant.stderr).toBe(0);
        const app = await svc(
          ['app', 'create', '--name', 'reader', '--type', 'private', '--permission', 'token:read', '--json'],
          fileEnv,
        );
        expect(app.code, app.stderr).toBe(0);
        const key = (JSON.parse(app.stdout) as { key: string }).key;
        const ids: string[] = [];
        for (const data of ['"plain text"', '{"number":"4242424242424242"}']) {
          const type = data.startsWith('{') ? 'card' : 'token';
          const made = await svc(['token', 'create', '--type', type, '--data', data, '--json'], fileEnv);
          expect(made.code, made.stderr).toBe(0);
          ids.push((JSON.parse(made.stdout) as Token).id);
        }
        const exported = await svc(['vault', 'export', '--to', own.url], fileEnv);
        expect(exported.code, exported.stderr).toBe(0);
        expect(exported.stdout).toMatch(
          /^Exported .* to postgres:\/\/.*: 2 tokens, \d+ rows in all \(counts checked\), audit chains verified/,
        );

        // The file's own server and the database's answer the same reads with the same key.
        const fromFile = await svcServe(['serve', '--port', '0'], fileEnv);
        let before: unknown[];
        try {
          before = await Promise.all(
            ids.map(async (id) => (await api(fromFile.url, 'GET', `/tokens/${id}`, { key })).body),
          );
        } finally {
          expect(await stop(fromFile.child)).toBe(0);
        }
        const onDatabase = await svcServe(['serve', '--port', '0'], {
          ...fileEnv,
          SVC_DATABASE_URL: own.url,
        });
        try {
          const after = await Promise.all(
            ids.map((id) => api(onDatabase.url, 'GET', `/tokens/${id}`, { key })),
          );
          expect(after.map((r) => r.status)).toEqual([200, 200]);
          expect(after.map((r) => r.body)).toEqual(before);
        } finally {
          expect(await stop(onDatabase.child)).toBe(0);
        }
        const verified = await svc(['logs', 'verify'], { ...fileEnv, SVC_DATABASE_URL: own.url });
        expect(verified.code, verified.stderr).toBe(0);
        // A second export into the same database is refused; it already holds the vault.
        const again = await svc(['vault', 'export', '--to', own.url], fileEnv);
        expect(again.code).toBe(1);
        expect(again.stderr).toMatch(/already exists/);

        // And back with svc vault import --from: the file exists, so only --yes replaces it; the
        // imported file, served on its own, answers the same reads.
        const refused = await svc(['vault', 'import', '--from', own.url], fileEnv);
        expect(refused.code).toBe(2);
        expect(refused.stderr).toMatch(/replacing the vault at .* needs confirmation; pass --yes/);
        const imported = await svc(['vault', 'import', '--from', own.url, '--yes'], fileEnv);
        expect(imported.code, imported.stderr).toBe(0);
        expect(imported.stdout).toMatch(
          /^Imported postgres:\/\/.* into .*: 2 tokens, \d+ rows in all \(counts checked\), audit chains verified/,
        );
        const fromImported = await svcServe(['serve', '--port', '0'], fileEnv);
        try {
          const back = await Promise.all(
            ids.map((id) => api(fromImported.url, 'GET', `/tokens/${id}`, { key })),
          );
          expect(back.map((r) => r.body)).toEqual(before);
        } finally {
          expect(await stop(fromImported.child)).toBe(0);
        }
        expect((await svc(['logs', 'verify'], fileEnv)).code).toBe(0);
      } finally {
        await own.drop();
        await rm(fileHome, { recursive: true, force: true });
      }
    });
  },
);
