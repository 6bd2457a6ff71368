/**
 * What a PostgreSQL session costs the server: `node --import tsx bench/postgres-sessions.ts [sessions]`
 * (default 100) opens that many connections one after another to a fresh vault's schema on the test
 * database (SVC_TEST_POSTGRES_URL or 127.0.0.1:5432/test), bare (`connect`) or with a vault's first
 * reads (`queries`), and reads the server's CPU seconds (its postmaster and the backends it reaped,
 * from /proc: run it on the database's machine, as root or the postgres user). One JSON line per
 * mode, in milliseconds per session. The schema is dropped afterwards. Not part of `npm run bench`.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { makeTempSchema } from '../core/test-support/postgres.ts';
import { createPostgresVault } from '../core/backends/postgres/postgres-vault.ts';
import { emit } from './json-lines.ts';

const sessions = Number(process.argv[2] ?? 100);
const postmaster = execFileSync('pgrep', ['-o', '-x', 'postgres'], { encoding: 'utf8' }).trim();
const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/** The server's CPU seconds so far: the postmaster's own and its reaped children's. */
function serverCpuSeconds(): number {
  const fields = readFileSync(`/proc/${postmaster}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / ticks;
}

const schema = await makeTempSchema({ durableCommits: true });
try {
  const vault = await createPostgresVault({
    url: schema.url,
    key: { kind: 'key', key: new Uint8Array(32).fill(7) },
  });
  await vault.close();
  for (const mode of ['connect', 'queries'] as const) {
    const before = serverCpuSeconds();
    for (let i = 0; i < sessions; i += 1) {
      const client = new pg.Client({ connectionString: schema.url });
      await client.connect();
      if (mode === 'queries') {
        await client.query('select * from applications where key_hash = $1', ['x']);
        await client.query('select "term", "wrapped" from "tenant_keys" where "tenant_id" = $1', ['x']);
        await client.query('select "vault_id" from "vault_keyring"');
        await client.query('select "seq", "hash" from "audit_heads" where "tenant_id" = $1', ['x']);
        await client.query('select count(*) from tokens where tenant_id = $1', ['x']);
      }
      await client.end();
    }
    const perSession = ((serverCpuSeconds() - before) * 1000) / sessions;
    emit({
      bench: 'postgres-sessions',
      metric: 'server_cpu_per_session',
      value: Math.round(perSession * 10) / 10,
      unit: 'ms',
      mode,
      sessions,
    });
  }
} finally {
  await schema.drop();
}
