/**
 * The CPU one PostgreSQL test vault costs this process, as the `postgres` project's fixtures make
 * them (reused schemas, core/test-support/postgres.ts): create a vault, dispose of it, N times.
 * `SVC_TEST_BACKEND=postgres node --import tsx scripts/suite-cpu/postgres-fixture.ts [N] [fresh]`;
 * with `fresh`, each fixture makes a new schema and drops it (reuse off, as a file's first fixture
 * did before schemas were kept across files). Also prints the PostgreSQL server's CPU meanwhile
 * (the postmaster's and its reaped backends', from /proc: Linux only; a backend still connected
 * is not counted, so with reuse the kept pool's sessions are missing from it).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { endSchemaReuse, reuseSchemas } from '../../core/test-support/postgres.ts';
import { createTestVault } from '../../core/test-support/test-vault.ts';

const count = Number(process.argv[2] ?? 30);
const fresh = process.argv[3] === 'fresh';
const postmaster = execFileSync('pgrep', ['-o', '-x', 'postgres'], { encoding: 'utf8' }).trim();
/** Milliseconds of CPU of the PostgreSQL server: the postmaster's and its reaped backends' (USER_HZ 100). */
const serverCpuMs = (): number => {
  const fields = readFileSync(`/proc/${postmaster}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0) * 10;
};
const cpuMs = (): number => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

if (!fresh) reuseSchemas();
// The first fixtures load modules and create the schema the others reuse.
for (let i = 0; i < 3; i++) await (await createTestVault()).dispose();
const started = cpuMs();
const serverStarted = serverCpuMs();
const wall = performance.now();
let creating = 0;
let disposing = 0;
for (let i = 0; i < count; i++) {
  const a = cpuMs();
  const vault = await createTestVault();
  const b = cpuMs();
  await vault.dispose();
  creating += b - a;
  disposing += cpuMs() - b;
}
const per = (ms: number): string => (ms / count).toFixed(1);
console.log(
  `per fixture: ${per(cpuMs() - started)} ms of CPU (create ${per(creating)}, dispose ${per(disposing)}), ${per(performance.now() - wall)} ms wall, server ${per(serverCpuMs() - serverStarted)} ms of CPU${fresh ? ' (fresh schemas)' : ''}`,
);
await endSchemaReuse();
