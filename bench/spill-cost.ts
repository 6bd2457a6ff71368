/**
 * What moving audit entries out of sql.js into segment files costs per entry: `node --import tsx
 * bench/spill-cost.ts [entries] [rounds]`. In-process over a temp vault: `entries` token reads (one
 * audit entry each) are made with spills held back, then the vault is closed, which moves every
 * entry left to segments; a second close, with nothing left to move, is the baseline. Prints the
 * median process CPU per entry moved, and the first round's CPU by thread (Linux: main thread,
 * V8's platform threads, libuv's pool). `SPILL_PROFILE=<file>` writes a sampling profile of the
 * first round's spilling close. Not part of `npm run bench`.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServices } from '../core/services.ts';
import { createVault, openVault } from '../core/vault/index.ts';
import { emit } from './json-lines.ts';

const [entriesArg = '8192', roundsArg = '5'] = process.argv.slice(2);
const entries = Number(entriesArg);
const rounds = Number(roundsArg);

const cpuUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

/** CPU milliseconds by thread name, from /proc (empty elsewhere). */
function threadCpuMs(): Map<string, number> {
  const byName = new Map<string, number>();
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return byName;
  }
  const tickMs = 10; // USER_HZ is 100 on Linux
  for (const task of tasks) {
    try {
      const name = readFileSync(`/proc/self/task/${task}/comm`, 'utf8').trim();
      const fields = readFileSync(`/proc/self/task/${task}/stat`, 'utf8').split(') ')[1]!.split(' ');
      byName.set(name, (byName.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) * tickMs);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return byName;
}

async function profiled<T>(out: string | undefined, fn: () => Promise<T>): Promise<T> {
  if (!out) return fn();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  try {
    return await fn();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    await writeFile(out, JSON.stringify(profile));
    session.disconnect();
  }
}

const perEntry: number[] = [];
let byThread = '';
for (let r = 0; r < rounds; r++) {
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-spill-'));
  const path = join(dir, 'vault.svc');
  const key = { kind: 'key' as const, key: new Uint8Array(randomBytes(32)) };
  try {
    let vault = await createVault({
      path,
      key,
      auditSegments: { spillThresholdRows: Number.MAX_SAFE_INTEGER },
    });
    const services = createServices(vault);
    const { tenant } = await services.tenants.create({ name: 'bench', withApplication: false }, null);
    const operator = { kind: 'operator' as const, tenantId: tenant.id };
    const { token } = await services.tokens.create(operator, {
      type: 'card_number',
      data: '4242424242424242',
    });
    for (let i = 0; i < entries; i += 50)
      await Promise.all(Array.from({ length: 50 }, () => services.tokens.get(operator, token.id)));
    const timedClose = async () => {
      const c0 = cpuUs();
      await vault.close();
      return cpuUs() - c0;
    };
    const t0 = threadCpuMs();
    const spilling = await profiled(r === 0 ? process.env.SPILL_PROFILE : undefined, timedClose);
    if (r === 0) {
      const t1 = threadCpuMs();
      byThread = [...t1]
        .map(([name, ms]) => [name, ms - (t0.get(name) ?? 0)] as const)
        .filter(([, ms]) => ms !== 0)
        .map(([name, ms]) => `${name} ${ms}`)
        .join(', ');
    }
    vault = await openVault({ path, key });
    const baseline = await timedClose();
    perEntry.push((spilling - baseline) / entries);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
emit({
  bench: 'spill-cost',
  metric: 'cpu_per_entry_spilled',
  value: Math.round(median(perEntry) * 10) / 10,
  unit: 'µs',
  entries,
  rounds: perEntry.map((v) => Math.round(v * 10) / 10).join(' '),
  first_round_spilling_close_cpu_ms_by_thread: byThread,
});
