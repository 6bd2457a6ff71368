/**
 * The CPU one PostgreSQL test vault costs this process, as the `postgres` project's fixtures make
 * them (reused schemas, core/test-support/postgres.ts): create a vault, dispose of it, N times.
 * `SVC_TEST_BACKEND=postgres node --import tsx scripts/suite-cpu/postgres-fixture.ts [N]`. The
 * PostgreSQL server's own CPU is not counted here: read it from the postmaster's /proc/<pid>/stat
 * (its reaped children, fields 16–17) before and after.
 */
import { endSchemaReuse, reuseSchemas } from '../../core/test-support/postgres.ts';
import { createTestVault } from '../../core/test-support/test-vault.ts';

const count = Number(process.argv[2] ?? 30);
const cpuMs = (): number => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

reuseSchemas();
// The first fixtures load modules and create the schema the others reuse.
for (let i = 0; i < 3; i++) await (await createTestVault()).dispose();
const started = cpuMs();
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
  `per fixture: ${per(cpuMs() - started)} ms of CPU (create ${per(creating)}, dispose ${per(disposing)}), ${per(performance.now() - wall)} ms wall`,
);
await endSchemaReuse();
