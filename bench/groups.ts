/**
 * How full the grouped writes are, and what a group costs: `node --import tsx bench/groups.ts
 * <tokenize|read> [callers] [seconds] [rounds] [think ms] [write delay ms]`. In-process, over a temp vault with real durable
 * writes (no HTTP), for one-card tokenize (write-groups.ts) or a token read (its read-audit batch).
 *
 * 1. Bursts: `rounds` alternating rounds of bursts of 2 and of 50 concurrent calls, each burst
 *    awaited before the next. Every burst costs a known number of transactions (counted), so the
 *    process CPU per call of the two sizes gives the fixed CPU of one group (its transaction, its
 *    journal record and the two durable writes) and the CPU of one member.
 * 2. Closed loop: `callers` callers each calling again as soon as answered (or after a random
 *    pause of up to `think` ms, as over HTTP an answered caller's next request arrives later), for
 *    `seconds`; calls per second, and the transactions per call give the mean group size, with
 *    the process CPU per call.
 *
 * With a write delay, the vault runs on the tests' file layer without syncs and each write to the
 * journal or the acknowledged mark first waits that long on a timer: a disk that is slow to make a
 * write durable, without the CPU a real one takes, so the machine's load does not set the figure.
 *
 * In-process callers call again within the same turn of the event loop; over HTTP an answered
 * caller's next request arrives turns later, so the group sizes differ (see docs/performance.md,
 * "Grouped writes: how full the groups are"). CPU figures include libuv's pool (the durable
 * writes), not only the main thread. Not part of `npm run bench`.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServices } from '../core/services.ts';
import { createVault } from '../core/vault/index.ts';
import type { StorageFs } from '../core/backends/embedded/storage-fs.ts';
import { unsyncedFs } from '../core/test-support/unsynced-fs.ts';
import { emit } from './json-lines.ts';
import { benchAuditSegments } from './support/held-spills.ts';

const BENCH = 'groups';
const [
  mode = 'tokenize',
  callersArg = '50',
  secondsArg = '5',
  roundsArg = '6',
  thinkArg = '0',
  writeDelayArg = '0',
] = process.argv.slice(2);
if (mode !== 'tokenize' && mode !== 'read') throw new Error('usage: groups.ts <tokenize|read> ...');
const callers = Number(callersArg);
const seconds = Number(secondsArg);
const rounds = Number(roundsArg);
const thinkMs = Number(thinkArg);
const writeDelayMs = Number(writeDelayArg);

/** unsyncedFs whose journal and mark writes each wait `writeDelayMs` first. */
const slowDiskFs: StorageFs = {
  ...unsyncedFs,
  open: async (path, flags, mode) => {
    const handle = await unsyncedFs.open(path, flags, mode);
    if (!/\.(journal|ack)$/.test(path)) return handle;
    return {
      ...handle,
      write: async (buffer, offset, length, position) => {
        await new Promise((resolve) => setTimeout(resolve, writeDelayMs));
        return handle.write(buffer, offset, length, position);
      },
    };
  },
};

const dir = await mkdtemp(join(tmpdir(), 'svc-bench-groups-'));
const vault = await createVault({
  path: join(dir, 'vault.svc'),
  key: { kind: 'key', key: new Uint8Array(randomBytes(32)) },
  ...(writeDelayMs > 0 ? { fs: slowDiskFs } : {}),
  ...benchAuditSegments(),
});
// Counted before the services take the vault: every group and every batch is one transaction.
let transactions = 0;
const transaction = vault.transaction.bind(vault);
vault.transaction = (fn, options) => {
  transactions += 1;
  return transaction(fn, options);
};
try {
  const services = createServices(vault);
  const { tenant } = await services.tenants.create({ name: 'bench', withApplication: false }, null);
  const operator = { kind: 'operator' as const, tenantId: tenant.id };
  const { token } = await services.tokens.create(operator, { type: 'card_number', data: '4242424242424242' });
  const body = { name: 'Jane Doe', card: { type: 'card_number', data: '4242424242424242' } };
  const call: () => Promise<unknown> =
    mode === 'tokenize'
      ? () => services.tokens.tokenize(operator, body)
      : () => services.tokens.get(operator, token.id);
  const cpuUs = () => {
    const u = process.cpuUsage();
    return u.user + u.system;
  };
  const burst = (k: number) => Promise.all(Array.from({ length: k }, call));

  // 1. Bursts of 2 and of 50, alternating.
  const sizes = [2, 50] as const;
  const perCall = new Map<number, number[]>(sizes.map((k) => [k, []]));
  const groupsPerBurst = new Map<number, number>();
  for (const k of sizes) for (let i = 0; i < 20; i++) await burst(k); // warm-up
  for (let r = 0; r < rounds; r++) {
    for (const k of sizes) {
      const bursts = Math.round(4000 / k);
      const t0 = transactions;
      const c0 = cpuUs();
      for (let i = 0; i < bursts; i++) await burst(k);
      perCall.get(k)!.push((cpuUs() - c0) / (bursts * k));
      groupsPerBurst.set(k, (transactions - t0) / bursts);
    }
  }
  const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
  const small = median(perCall.get(2)!);
  const large = median(perCall.get(50)!);
  const g2 = groupsPerBurst.get(2)!;
  const g50 = groupsPerBurst.get(50)!;
  // Per call: groups × fixed / k + member. Two sizes, two unknowns.
  const fixed = (small - large) / (g2 / 2 - g50 / 50);
  const member = large - (g50 * fixed) / 50;
  emit({ bench: BENCH, metric: `${mode}_group_fixed_cpu`, value: Math.round(fixed), unit: 'µs', rounds });
  emit({ bench: BENCH, metric: `${mode}_member_cpu`, value: Math.round(member), unit: 'µs', rounds });

  // 2. Closed loop.
  const t0 = transactions;
  const c0 = cpuUs();
  const end = performance.now() + seconds * 1000;
  let calls = 0;
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (performance.now() < end) {
        await call();
        calls += 1;
        if (thinkMs > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * thinkMs));
      }
    }),
  );
  const cpu = (cpuUs() - c0) / calls;
  const rate = calls / seconds;
  const meanGroup = calls / Math.max(1, transactions - t0);
  emit({
    bench: BENCH,
    metric: `${mode}_mean_group`,
    value: Math.round(meanGroup * 10) / 10,
    unit: 'calls',
    callers,
  });
  emit({ bench: BENCH, metric: `${mode}_cpu_per_call`, value: Math.round(cpu), unit: 'µs', callers });
  emit({
    bench: BENCH,
    metric: `${mode}_calls_per_second`,
    value: Math.round(rate),
    unit: 'calls/s',
    callers,
    thinkMs,
  });
} finally {
  await vault.close({ snapshot: false });
  await rm(dir, { recursive: true, force: true });
}
