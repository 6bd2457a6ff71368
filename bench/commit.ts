/**
 * `npm run bench -- --only commit`: what ONE small commit costs on the embedded vault, the cost a
 * request pays alone at one connection. One operation at a time over a temp vault: an empty
 * transaction, a transaction with one trivial write (the journal record, its seal, the durable
 * writes and the acknowledged mark), and one read-audit commit of one entry (chain-head read, keyed
 * link, insert, head move). Per operation, p50 of the process's CPU (`process.cpuUsage`: the
 * main thread plus libuv's pool doing the durable writes) and of wall time, and the main thread's
 * own CPU as a mean over the run (from /proc/self/task/<pid>/stat on Linux: clock ticks, too coarse
 * for one operation, exact enough over thousands).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReadAudit } from '../core/tokens/read-audit.ts';
import { createVault } from '../core/vault/index.ts';
import type { VaultHandle } from '../core/vault/types.ts';
import type { KeySource } from '../core/crypto/root-key.ts';
import { emit } from './json-lines.ts';
import { mainThreadCpuMs } from './support/process-cpu.ts';
import { withRowMac } from '../core/integrity/row-authenticator.ts';

const BENCH = 'commit';
const TENANT = '00000000-0000-4000-8000-000000000001';

const cpuNow = () => process.cpuUsage();

/** The main thread's CPU in µs so far, or null off Linux (clock ticks: 10 ms resolution). */
function mainThreadCpuUs(): number | null {
  const ms = mainThreadCpuMs();
  return ms === null ? null : ms * 1000;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function timeEach(
  operations: number,
  op: () => Promise<void>,
): Promise<{ cpu: number[]; wall: number[]; mainMeanUs: number | null }> {
  const cpu: number[] = [];
  const wall: number[] = [];
  const m0 = mainThreadCpuUs();
  for (let i = 0; i < operations; i++) {
    const c = cpuNow();
    const t = performance.now();
    await op();
    wall.push((performance.now() - t) * 1000);
    const d = cpuNow();
    cpu.push(d.user - c.user + (d.system - c.system));
  }
  const m1 = mainThreadCpuUs();
  const mainMeanUs = m0 === null || m1 === null ? null : (m1 - m0) / operations;
  return { cpu, wall, mainMeanUs };
}

async function addTenant(vault: VaultHandle): Promise<void> {
  await vault.transaction(async (trx) => {
    await trx
      .insertInto('tenants')
      .values(
        withRowMac(vault, 'tenants', {
          id: TENANT,
          owner_id: null,
          name: 'bench',
          settings: '{}',
          created_at: new Date().toISOString(),
          created_by: null,
          modified_at: null,
          modified_by: null,
        }),
      )
      .execute();
  });
}

export async function runCommitBench(options: { operations: number }): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-commit-'));
  const key: KeySource = { kind: 'key', key: new Uint8Array(randomBytes(32)) };
  try {
    const vault = await createVault({ path: join(dir, 'commit.svc'), key });
    await addTenant(vault);
    const audit = new ReadAudit(vault);
    const cases: Array<[string, (i: number) => Promise<void>]> = [
      ['empty_transaction', () => vault.transaction(async () => undefined)],
      [
        'one_write_transaction',
        (i) =>
          vault.transaction(async (trx) => {
            await trx
              .insertInto('vault_meta')
              .values({ key: `bench-${i}`, value: 'x' })
              .execute();
          }),
      ],
      [
        'read_audit_commit',
        (i) =>
          audit.record({
            entries: [
              {
                principal: null,
                event: {
                  tenantId: TENANT,
                  entityType: 'token',
                  entityId: `tok-${i}`,
                  operation: 'read',
                  message: 'Token read.',
                },
              },
            ],
          }),
      ],
    ];
    // Rounds interleave the cases, so that a change in the shared machine's load hits each alike;
    // per case, the median of the rounds' main-thread means and the p50s over every operation.
    const rounds = 5;
    const perRound = Math.max(1, Math.floor(options.operations / rounds));
    const results = new Map<string, Array<{ cpu: number[]; wall: number[]; mainMeanUs: number | null }>>();
    let next = 0;
    let done = 0;
    for (const [, op] of cases) for (let i = 0; i < 200; i++) await op(--next); // warm the caches and the JIT
    for (let round = 0; round < rounds; round++) {
      for (const [name, op] of cases) {
        const list = results.get(name) ?? [];
        list.push(await timeEach(perRound, () => op(++done)));
        results.set(name, list);
      }
    }
    for (const [name, list] of results) {
      const cpu = list.flatMap((r) => r.cpu);
      const wall = list.flatMap((r) => r.wall);
      const means = list.map((r) => r.mainMeanUs).filter((m): m is number => m !== null);
      emit({
        bench: BENCH,
        metric: `${name}_process_cpu_p50`,
        value: Math.round(median(cpu)),
        unit: 'us',
        operations: cpu.length,
      });
      if (means.length > 0) {
        emit({
          bench: BENCH,
          metric: `${name}_main_thread_cpu_mean`,
          value: Math.round(median(means)),
          unit: 'us',
          rounds: means.map((m) => Math.round(m)).join(' '),
        });
      }
      emit({ bench: BENCH, metric: `${name}_wall_p50`, value: Math.round(median(wall)), unit: 'us' });
    }
    await vault.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
