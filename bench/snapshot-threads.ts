/**
 * What runs beside the event loop during a background snapshot:
 * `node --import tsx bench/snapshot-threads.ts [tokens] [folder key-hex]`. Builds a vault of
 * `tokens` tokens (or reopens the one a previous run printed), commits once, runs `compact()`
 * (the snapshot worker from compiled entries, as the bench servers do) and prints each thread's
 * CPU during it by thread name and nice value (/proc/self/task; Linux only), and the main
 * thread's longest gaps between 1 ms timer ticks with its own CPU in each: a gap the main thread
 * did not spend running was a wait for a core (or a block outside the process). CPU per thread
 * holds on a loaded machine, where the gaps mostly show the other load. Not part of `npm run bench`.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServices } from '../core/services.ts';
import { createVault, openVault } from '../core/vault/index.ts';
import { emit } from './json-lines.ts';
import { useCompiledWorkers } from './support/compiled-workers.ts';
import { tokenizeScaleTokens } from './support/scale-tokens.ts';

const BENCH = 'snapshot-threads';
const [tokensArg = '100000', folderArg, keyArg] = process.argv.slice(2);
await useCompiledWorkers();
const key = {
  kind: 'key' as const,
  key: new Uint8Array(keyArg === undefined ? randomBytes(32) : Buffer.from(keyArg, 'hex')),
};
const folder = folderArg ?? (await mkdtemp(join(tmpdir(), 'svc-bench-snapshot-threads-')));
const path = join(folder, 'vault.svc');
if (folderArg === undefined) {
  const built = await createVault({ path, key, snapshotThresholdBytes: Number.MAX_SAFE_INTEGER });
  const services = createServices(built);
  const { tenant } = await services.tenants.create({ name: 'bench', withApplication: false }, null);
  await tokenizeScaleTokens(built, services, { kind: 'operator', tenantId: tenant.id }, Number(tokensArg));
  await built.close();
  emit({
    bench: BENCH,
    metric: 'built',
    value: Number(tokensArg),
    unit: 'tokens',
    folder,
    key: Buffer.from(key.key).toString('hex'),
  });
}
const vault = await openVault({ path, key, snapshotThresholdBytes: Number.MAX_SAFE_INTEGER });
await vault.transaction(async (trx) => {
  await trx
    .insertInto('vault_meta')
    .values({ key: `snapshot-threads-${Date.now()}`, value: '' })
    .execute();
});

/** CPU ms so far of each live thread, by `name nice=N` (threads of one name and nice added up). */
function threadCpu(): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended meanwhile
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ms = (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, in 10 ms ticks
    const label = `${name} nice=${fields[16]}`;
    out.set(label, (out.get(label) ?? 0) + ms);
  }
  return out;
}

const before = threadCpu();
// Sampled during the build: the snapshot worker's threads are gone once it ends.
const peak = new Map(before);
const sample = () => {
  for (const [label, ms] of threadCpu()) peak.set(label, Math.max(peak.get(label) ?? 0, ms));
};
const sampler = setInterval(sample, 50);
const gaps: Array<{ gap_ms: number; own_cpu_ms: number }> = [];
let lastAt = performance.now();
let lastCpu = process.threadCpuUsage();
const probe = setInterval(() => {
  const at = performance.now();
  const cpu = process.threadCpuUsage();
  if (at - lastAt > 10) {
    const own = (cpu.user + cpu.system - lastCpu.user - lastCpu.system) / 1000;
    gaps.push({ gap_ms: Math.round(at - lastAt), own_cpu_ms: Math.round(own) });
  }
  lastAt = at;
  lastCpu = cpu;
}, 1);
const started = performance.now();
await vault.compact();
const snapshotMs = performance.now() - started;
clearInterval(probe);
clearInterval(sampler);
sample();
await vault.close({ snapshot: false });
const threads = [...peak]
  .map(([label, ms]) => [label, ms - (before.get(label) ?? 0)] as const)
  .filter(([, ms]) => ms > 0)
  .sort((a, b) => b[1] - a[1]);
emit({ bench: BENCH, metric: 'snapshot_ms', value: Math.round(snapshotMs), unit: 'ms' });
for (const [thread, ms] of threads)
  emit({ bench: BENCH, metric: 'thread_cpu_ms', value: ms, unit: 'ms', thread });
emit({
  bench: BENCH,
  metric: 'longest_main_thread_gaps',
  value: gaps.length,
  unit: 'gaps over 10 ms',
  worst: gaps
    .sort((a, b) => b.gap_ms - a.gap_ms)
    .slice(0, 5)
    .map((g) => `${g.gap_ms} ms (own ${g.own_cpu_ms})`)
    .join(', '),
});
