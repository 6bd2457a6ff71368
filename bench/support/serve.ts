/**
 * A server for the HTTP benchmarks, in its own process so the load generator does not share its
 * event loop. Mode `echo`: a bare Fastify JSON echo (the framework's ceiling). Mode `server-echo`:
 * the same echo on our own server stack (trace ids, logging, error handling, access checks), the
 * ceiling our routes can reach. Mode `floor`: that stack answering `POST /floor/tokenize` and
 * `GET /floor/tokens/:id` with the engine's least work for each (engine-floor.ts,
 * tokenize-floor.ts), the most those routes could reach. Mode `vault`: the real API over a temp
 * vault, with a private
 * application and one token to read. Prints one JSON line when ready.
 */
import './serving-runtime.ts';
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { createServices } from '../../core/services.ts';
import { createVault } from '../../core/vault/index.ts';
import { buildServer } from '../../server/app.ts';
import { startServer } from '../../server/listen.ts';
import { enableSignalProfiling } from './profiling.ts';
import { stopOnSigterm } from './bench-signals.ts';
import { EngineFloor } from './engine-floor.ts';
import { benchAuditSegments } from './held-spills.ts';
import { tokenizeOnFloor } from './tokenize-floor.ts';
import { benchStorageFs } from './volatile-fs.ts';

enableSignalProfiling();

const mode = process.argv[2];

if (mode === 'echo') {
  const app = Fastify({ logger: false });
  app.post('/echo', async (request) => request.body);
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  process.stdout.write(`${JSON.stringify({ url })}\n`);
} else if (mode === 'server-echo') {
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-echo-'));
  const vault = await createVault({
    path: join(dir, 'vault.svc'),
    key: { kind: 'key', key: new Uint8Array(randomBytes(32)) },
  });
  const app = await buildServer(vault, { logger: { level: 'silent' } });
  app.post('/echo', { config: { access: 'public' } }, async (request) => request.body);
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  process.stdout.write(`${JSON.stringify({ url })}\n`);
  stopOnSigterm(
    dir,
    () => app.close(),
    () => vault.close({ snapshot: false }),
  );
} else if (mode === 'floor') {
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-floor-'));
  const vault = await createVault({
    path: join(dir, 'vault.svc'),
    key: { kind: 'key', key: new Uint8Array(randomBytes(32)) },
  });
  const floor = await EngineFloor.open(dir);
  const app = await buildServer(vault, { logger: { level: 'silent' } });
  // Public on our stack, so the key is checked here as the floor checks it.
  app.post('/floor/tokenize', { config: { access: 'public' } }, async (request, reply) => {
    const presented = request.headers['svc-api-key'];
    const actor = typeof presented === 'string' ? floor.application(presented) : null;
    if (actor === null) return reply.code(401).send({ title: 'Unauthorized' });
    return tokenizeOnFloor(floor, actor, request.body);
  });
  app.get<{ Params: { id: string } }>(
    '/floor/tokens/:id',
    { config: { access: 'public' } },
    async (request, reply) => {
      const presented = request.headers['svc-api-key'];
      const actor = typeof presented === 'string' ? floor.application(presented) : null;
      if (actor === null) return reply.code(401).send({ title: 'Unauthorized' });
      const token = await floor.read(actor, request.params.id);
      return token ?? reply.code(404).send({ title: 'Not Found' });
    },
  );
  const key = randomBytes(24).toString('base64url');
  floor.addApiKey(key, 'bench-application');
  const seeded = floor.tokenize('operator', 'card_number', '4242424242424242');
  await seeded.durable;
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  process.stdout.write(`${JSON.stringify({ url, key, tokenId: seeded.token.id })}\n`);
  stopOnSigterm(
    dir,
    () => app.close(),
    () => floor.close(),
    () => vault.close({ snapshot: false }),
  );
} else {
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-http-'));
  const vault = await createVault({
    path: join(dir, 'vault.svc'),
    key: { kind: 'key', key: new Uint8Array(randomBytes(32)) },
    ...benchStorageFs(),
    ...benchAuditSegments(),
  });
  const services = createServices(vault);
  const { tenant } = await services.tenants.create({ name: 'bench', withApplication: false }, null);
  const operator = { kind: 'operator' as const, tenantId: tenant.id };
  const app = await services.applications.create(operator, {
    name: 'bench',
    type: 'private',
    permissions: ['token:create', 'token:read', 'token:search'],
  });
  const { token } = await services.tokens.create(operator, { type: 'card_number', data: '4242424242424242' });
  const server = await startServer(vault, {
    host: '127.0.0.1',
    port: 0,
    services,
    logger: { level: 'silent' },
  });
  process.stdout.write(`${JSON.stringify({ url: server.url, key: app.key, tokenId: token.id })}\n`);
  stopOnSigterm(
    dir,
    () => server.close(),
    () => vault.close({ snapshot: false }),
  );
}
