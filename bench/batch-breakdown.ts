/**
 * Where a 1,000-value tokenize's CPU goes against the engine's insert ceiling:
 * `node --import tsx bench/batch-breakdown.ts [rounds]`. In-process, over a temp vault with real
 * durable writes (no HTTP): rounds alternate one 1,000-value tokenize through the services and
 * 1,000 tokens of the insert ceiling (bench/support/insert-ceiling.ts) in a bare database, both on
 * this thread, so the machine's load moves both alike. Prints the CPU per 1,000 tokens of each and
 * their ratio (the `http` suite's target 3, without HTTP), then the vault's CPU by statement (the
 * statements' own run on sql.js, binding and journal capture included): what is left of the
 * vault's CPU is the work around the inserts. Not part of `npm run bench`.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { QueryResult } from 'kysely';
import { SqlJsConnection } from '../core/backends/embedded/sqljs-dialect.ts';
import { createServices } from '../core/services.ts';
import { createVault } from '../core/vault/index.ts';
import { emit } from './json-lines.ts';
import { database, insertAll, TABLES } from './support/insert-ceiling.ts';

const BENCH = 'batch-breakdown';
const VALUES = 1000;
const rounds = Number(process.argv[2] ?? '20');

const cpuUs = (): number => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

// Every statement of the vault runs through SqlJsConnection.run: its CPU is counted by statement.
const byStatement = new Map<string, { us: number; runs: number }>();
let counting = false;
const run = SqlJsConnection.prototype.run;
SqlJsConnection.prototype.run = function <R>(
  this: SqlJsConnection,
  sql: string,
  params: readonly unknown[],
): QueryResult<R> {
  if (!counting) return run.call(this, sql, params) as QueryResult<R>;
  const started = cpuUs();
  try {
    return run.call(this, sql, params) as QueryResult<R>;
  } finally {
    const name = sql.split(/\s+/, 4).join(' ');
    const entry = byStatement.get(name) ?? { us: 0, runs: 0 };
    entry.us += cpuUs() - started;
    entry.runs += 1;
    byStatement.set(name, entry);
  }
};

const dir = await mkdtemp(join(tmpdir(), 'svc-bench-batch-'));
try {
  const vault = await createVault({
    path: join(dir, 'vault.svc'),
    key: { kind: 'key', key: new Uint8Array(randomBytes(32)) },
  });
  const services = createServices(vault);
  const { tenant } = await services.tenants.create({ name: 'bench', withApplication: false }, null);
  const operator = { kind: 'operator' as const, tenantId: tenant.id };
  const values = Array.from({ length: VALUES }, (_, i) => `value-${i}`);
  const ceiling = await database(undefined);
  // Warm-up: both compile and tier up their hot code first.
  for (let i = 0; i < 5; i++) {
    await services.tokens.tokenize(operator, values);
    insertAll(ceiling, TABLES, VALUES);
  }
  counting = true;
  let vaultUs = 0;
  let ceilingUs = 0;
  for (let r = 0; r < rounds; r++) {
    const started = cpuUs();
    await services.tokens.tokenize(operator, values);
    vaultUs += cpuUs() - started;
    ceilingUs += (VALUES * 1e6) / insertAll(ceiling, TABLES, VALUES);
  }
  counting = false;
  ceiling.close();
  await vault.close();
  const perThousand = (us: number): number => Number((us / rounds / 1000).toFixed(1));
  emit({
    bench: BENCH,
    metric: 'cpu_ms_per_1000_tokens',
    value: perThousand(vaultUs),
    unit: 'ms',
    insert_ceiling_ms: perThousand(ceilingUs),
    ratio_to_insert_ceiling: Number((ceilingUs / vaultUs).toFixed(3)),
    rounds,
  });
  for (const [statement, { us, runs }] of [...byStatement].sort((a, b) => b[1].us - a[1].us).slice(0, 8)) {
    emit({
      bench: BENCH,
      metric: 'statement_cpu_ms_per_1000_tokens',
      value: perThousand(us),
      unit: 'ms',
      statement,
      runs_per_request: Number((runs / rounds).toFixed(1)),
    });
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
