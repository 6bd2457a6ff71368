/**
 * The servers of the proxy benchmark, each in its own process (argv[2] picks one); each prints one
 * JSON line when ready and stops on SIGTERM.
 * - `upstream <ca-dir>`: an HTTPS server on 127.0.0.1 answering every request with a small JSON
 *   body, with the certificate of the test PKI (written to <ca-dir>: ca.pem, cert.pem, key.pem).
 * - `vault <upstream-port> <ca-dir>`: the vault API over a temp vault, a proxy to the upstream
 *   (reached as `upstream.svc.test`, resolved to 127.0.0.1 and allow-listed), a private
 *   application allowed to use tokens, and one token to detokenize.
 * - `bare <upstream-port> <ca-dir>`: the runtime's own ceiling for this shape of work: a plain
 *   `node:http` server (no vault, no Fastify) that forwards each request to the same upstream with
 *   undici, through an Agent built with the outbound client's own options (`outboundAgentOptions`:
 *   TLS ≥ 1.2 verified against the CA, the address policy in the socket's lookup, the timeouts),
 *   and streams the answer back. Nothing is detokenized or audited.
 * - `floor <upstream-port> <ca-dir>`: that bare proxy doing the least the vault's rules require per
 *   detokenized request (support/proxy-floor.ts); it prints the key to present and a token's id.
 */
import './support/serving-runtime.ts';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { createOutboundClient, outboundAgentOptions, parseAllowList } from '../core/outbound/index.ts';
import { testPki } from '../core/outbound/test-support/https-destination.ts';
import { createServices } from '../core/services.ts';
import { createVault } from '../core/vault/index.ts';
import { startServer } from '../server/listen.ts';
import { enableSignalProfiling } from './support/profiling.ts';
import { benchStorageFs } from './support/volatile-fs.ts';
import { proxyFloor } from './support/proxy-floor.ts';

const mode = process.argv[2];

if (mode === 'upstream') {
  const dir = process.argv[3] as string;
  const pki = await testPki();
  await writeFile(join(dir, 'ca.pem'), pki.caPem);
  await writeFile(join(dir, 'cert.pem'), pki.certPem);
  await writeFile(join(dir, 'key.pem'), pki.keyPem);
  const answer = Buffer.from(JSON.stringify({ ok: true, id: 'ch_1' }));
  const server = createServer({ cert: pki.certPem, key: pki.keyPem }, (req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.length });
      res.end(answer);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
  process.on('SIGTERM', () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
} else if (mode === 'vault') {
  enableSignalProfiling();
  const upstreamPort = Number(process.argv[3]);
  const caPem = await readFile(join(process.argv[4] as string, 'ca.pem'), 'utf8');
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-proxy-'));
  const vault = await createVault({
    path: join(dir, 'vault.svc'),
    key: { kind: 'key', key: new Uint8Array(randomBytes(32)) },
    ...benchStorageFs(),
  });
  const outbound = createOutboundClient(
    { allow: parseAllowList('127.0.0.1/32'), caPem, timeoutMs: 25_000 },
    { resolve: async () => [{ address: '127.0.0.1', family: 4 }] },
  );
  const services = createServices(vault, { outbound });
  const { tenant } = await services.tenants.create({ name: 'bench', withApplication: false }, null);
  const operator = { kind: 'operator' as const, tenantId: tenant.id };
  const app = await services.applications.create(operator, {
    name: 'bench',
    type: 'private',
    rules: [
      { description: '', priority: 1, container: '/', permissions: ['token:use'], transform: 'reveal' },
    ],
  });
  const { token } = await services.tokens.create(operator, { type: 'card_number', data: '4242424242424242' });
  const proxy = await services.proxies.create(operator, {
    name: 'bench',
    destination_url: `https://upstream.svc.test:${upstreamPort}/`,
  });
  const server = await startServer(vault, {
    host: '127.0.0.1',
    port: 0,
    services,
    logger: { level: 'silent' },
  });
  process.stdout.write(
    `${JSON.stringify({ url: server.url, key: app.key, proxyKey: proxy.key, tokenId: token.id })}\n`,
  );
  process.on('SIGTERM', () => {
    void (async () => {
      await server.close();
      await services.proxyInvoker.settled();
      await services.outbound.close();
      await services.sandbox.close();
      await vault.close({ snapshot: false });
      await rm(dir, { recursive: true, force: true });
      process.exit(0);
    })();
  });
} else if (mode === 'bare' || mode === 'floor') {
  enableSignalProfiling();
  const upstreamPort = Number(process.argv[3]);
  const caPem = await readFile(join(process.argv[4] as string, 'ca.pem'), 'utf8');
  const agent = new Agent(
    outboundAgentOptions({ allow: parseAllowList('127.0.0.1/32'), caPem, timeoutMs: 25_000 }, async () => [
      { address: '127.0.0.1', family: 4 },
    ]),
  );
  const origin = `https://upstream.svc.test:${upstreamPort}`;
  // Headers that belong to one connection, or that the transport sets for the new request.
  const notForwarded = new Set(['host', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);
  const floor = mode === 'floor' ? await proxyFloor() : null;
  const server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers))
        if (typeof value === 'string' && !notForwarded.has(name)) headers[name] = value;
      const body = chunks.length === 0 ? null : Buffer.concat(chunks);
      const failed = () => {
        if (!res.headersSent) res.writeHead(502).end();
      };
      const forward = (sent: Buffer | null, done: () => void) => {
        request(`${origin}${req.url ?? '/'}`, {
          dispatcher: agent,
          method: (req.method ?? 'GET') as 'GET',
          headers,
          body: sent,
        }).then((answer) => {
          const relayed: Record<string, string | string[]> = {};
          for (const [name, value] of Object.entries(answer.headers))
            if (value !== undefined && !notForwarded.has(name)) relayed[name] = value;
          res.writeHead(answer.statusCode, relayed);
          answer.body.pipe(res);
          done();
        }, failed);
      };
      // The bare proxy forwards at once; the floor first does the vault's least work.
      if (floor === null) forward(body, () => undefined);
      else floor.prepare(headers, body).then((prepared) => forward(prepared.body, prepared.done), failed);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  process.stdout.write(
    `${JSON.stringify({ url: `http://127.0.0.1:${port}`, ...(floor === null ? {} : floor.ready) })}\n`,
  );
  process.on('SIGTERM', () => {
    server.closeAllConnections();
    server.close(() => void Promise.all([agent.close(), floor?.close()]).then(() => process.exit(0)));
  });
} else {
  throw new Error(`unknown mode ${String(mode)}`);
}
