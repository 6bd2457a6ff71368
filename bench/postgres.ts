/**
 * `npm run bench -- --only postgres`: tokenize (one card) and token read on PostgreSQL, with one
 * server process and with two behind the same database, beside the embedded backend and our
 * server's JSON-echo ceiling measured in the same run. Every server is its own process and the load
 * comes from this one (autocannon); with two servers the connections are split evenly across both
 * and their requests summed. One connection cannot be split, so the two-server rows run one
 * connection per server (2 in all) and are compared with the echo at 2. Without a reachable
 * PostgreSQL the suite prints one JSON note line and skips.
 */
import { tmpdir } from 'node:os';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { createServices, outboxTenancyOptions } from '../core/services.ts';
import { makeTempSchema, postgresAvailable, TEST_POSTGRES_URL } from '../core/test-support/postgres.ts';
import { redactedDatabaseUrl } from '../core/backends/postgres/database-url.ts';
import { createPostgresVault } from '../core/backends/postgres/postgres-vault.ts';
import { startChild, TOKENIZE_PAYLOAD } from './http.ts';
import { emit } from './json-lines.ts';
import { startBenchServer, startTogether, stopChild } from './support/child.ts';
import { cpuMsPerRequest, processCpuMs } from './support/process-cpu.ts';

const BENCH = 'postgres';
const serveScript = fileURLToPath(new URL('./support/serve-postgres.ts', import.meta.url));

interface Target {
  readonly url: string;
  readonly pid: number | undefined;
}

interface Request {
  readonly path: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Record<string, string>;
  readonly body?: string;
}

/**
 * Runs `connections` across `targets` at once (split evenly, each target at least one) for
 * `seconds`, emits one line with the summed rate, and returns that rate.
 */
async function measure(
  metric: string,
  labels: { backend: string; servers: number },
  targets: readonly Target[],
  request: Request,
  connections: number,
  seconds: number,
  ceiling?: number,
): Promise<number> {
  const per = targets.map((_, i) =>
    Math.max(1, Math.floor(connections / targets.length) + (i < connections % targets.length ? 1 : 0)),
  );
  const cpuBefore = targets.map((t) => processCpuMs(t.pid));
  const results = await Promise.all(
    targets.map((t, i) =>
      autocannon({
        url: `${t.url}${request.path}`,
        method: request.method,
        headers: request.headers,
        ...(request.body === undefined ? {} : { body: request.body }),
        connections: per[i]!,
        duration: seconds,
      }),
    ),
  );
  const cpuAfter = targets.map((t) => processCpuMs(t.pid));
  const total = results.reduce((sum, r) => sum + r.requests.total, 0);
  const duration = Math.max(...results.map((r) => r.duration));
  const value = duration > 0 ? Math.round(total / duration) : 0;
  const cpu = (readings: (number | null)[]) =>
    readings.some((r) => r === null) ? null : readings.reduce((a: number, b) => a + (b ?? 0), 0);
  emit({
    bench: BENCH,
    metric: `${metric}_requests_per_second`,
    value,
    unit: 'req/s',
    backend: labels.backend,
    servers: labels.servers,
    connections: per.reduce((a, b) => a + b, 0),
    // The slowest server's tail: the one a client behind a balancer would see.
    latency_p50_ms: Math.max(...results.map((r) => r.latency.p50)),
    latency_p99_ms: Math.max(...results.map((r) => r.latency.p99)),
    errors: results.reduce((sum, r) => sum + r.errors + r.non2xx, 0),
    ...cpuMsPerRequest(cpu(cpuBefore), cpu(cpuAfter), total),
    ...(ceiling ? { ratio_to_server_echo: Number((value / ceiling).toFixed(3)) } : {}),
  });
  return value;
}

/** One vault in a fresh schema: a tenant, a private application and one card token to read. */
async function setUpDatabase(): Promise<{
  url: string;
  vaultKey: string;
  apiKey: string;
  tokenId: string;
  drop: () => Promise<void>;
}> {
  const schema = await makeTempSchema({ durableCommits: true });
  const raw = randomBytes(32);
  try {
    const vault = await createPostgresVault({
      url: schema.url,
      key: { kind: 'key', key: new Uint8Array(raw) },
    });
    try {
      // The bench sends no mail; a vault in a database is told where it would go.
      const services = createServices(vault, { tenancy: outboxTenancyOptions(tmpdir()) });
      const { tenant } = await services.tenants.create({ name: 'bench', withApplication: false }, null);
      const operator = { kind: 'operator' as const, tenantId: tenant.id };
      const app = await services.applications.create(operator, {
        name: 'bench',
        type: 'private',
        permissions: ['token:create', 'token:read'],
      });
      const { token } = await services.tokens.create(operator, {
        type: 'card_number',
        data: '4242424242424242',
      });
      return {
        url: schema.url,
        vaultKey: raw.toString('base64'),
        apiKey: app.key,
        tokenId: token.id,
        drop: schema.drop,
      };
    } finally {
      await vault.close();
    }
  } catch (err) {
    await schema.drop();
    throw err;
  }
}

export async function runPostgresBench(options: { seconds: number }): Promise<void> {
  if (!(await postgresAvailable())) {
    emit({
      bench: BENCH,
      metric: 'skipped',
      value: 0,
      unit: 'none',
      note: `PostgreSQL is not reachable at ${redactedDatabaseUrl(TEST_POSTGRES_URL)} (or SVC_TEST_POSTGRES_URL): the postgres suite is skipped`,
    });
    return;
  }
  const json = { 'content-type': 'application/json' };
  const { seconds } = options;

  // The ceiling, at every connection count used below.
  const ceilings = new Map<number, number>();
  // The echo and the embedded vault start side by side (nothing is measured yet); each stops once
  // its cases ran.
  const [echo, embedded] = await startTogether([startChild('server-echo'), startChild('vault')] as const);
  try {
    for (const connections of [1, 2, 50]) {
      const value = await measure(
        'server_json_echo_ceiling',
        { backend: 'none', servers: 1 },
        [{ url: echo.ready.url, pid: echo.child.pid }],
        { path: '/echo', method: 'POST', headers: json, body: TOKENIZE_PAYLOAD },
        connections,
        seconds,
      );
      ceilings.set(connections, value);
    }
  } catch (error) {
    await stopChild(embedded.child);
    throw error;
  } finally {
    await stopChild(echo.child);
  }

  /** Tokenize and read through `targets`, at 1 and 50 connections (per the split above). */
  const measureApi = async (
    labels: { backend: string; servers: number },
    targets: readonly Target[],
    apiKey: string,
    tokenId: string,
  ) => {
    const auth = { 'SVC-API-KEY': apiKey };
    for (const asked of [1, 50]) {
      const connections = Math.max(asked, targets.length);
      await measure(
        'tokenize',
        labels,
        targets,
        { path: '/tokenize', method: 'POST', headers: { ...json, ...auth }, body: TOKENIZE_PAYLOAD },
        connections,
        seconds,
        ceilings.get(connections),
      );
      await measure(
        'token_read',
        labels,
        targets,
        { path: `/tokens/${encodeURIComponent(tokenId)}`, method: 'GET', headers: auth },
        connections,
        seconds,
        ceilings.get(connections),
      );
    }
  };

  try {
    await measureApi(
      { backend: 'embedded', servers: 1 },
      [{ url: embedded.ready.url, pid: embedded.child.pid }],
      embedded.ready.key!,
      embedded.ready.tokenId!,
    );
  } finally {
    await stopChild(embedded.child);
  }

  for (const servers of [1, 2]) {
    // A fresh database per layout, so the two-server figures do not start on a bigger table.
    const db = await setUpDatabase();
    const children: Awaited<ReturnType<typeof startBenchServer<{ url: string }>>>[] = [];
    try {
      children.push(
        ...(await startTogether(
          Array.from({ length: servers }, () =>
            startBenchServer<{ url: string }>(serveScript, 'postgres', {
              SVC_BENCH_DATABASE_URL: db.url,
              SVC_BENCH_VAULT_KEY: db.vaultKey,
            }),
          ),
        )),
      );
      await measureApi(
        { backend: 'postgres', servers },
        children.map((c) => ({ url: c.ready.url, pid: c.child.pid })),
        db.apiKey,
        db.tokenId,
      );
    } finally {
      for (const c of children) await stopChild(c.child);
      await db.drop();
    }
  }
}
