/**
 * The expression attacks (server/test-support/expression-attacks.ts) against the real API in its own
 * process: one JSON line per attack with the worst `/healthz` stall seen while it ran, then the
 * worst of all. The target is a worst stall of at most 50 ms (`within_target`).
 */
import { emit } from './json-lines.ts';
import { startChild, stopChild } from './http.ts';
import { runExpressionAttacks } from '../server/test-support/expression-attacks.ts';

const BENCH = 'expressions';
export const STALL_TARGET_MS = 50;

export async function runExpressionsBench(options: { rounds: number }): Promise<void> {
  const vault = await startChild('vault');
  try {
    const results = await runExpressionAttacks(vault.ready.url, vault.ready.key!, { rounds: options.rounds });
    for (const r of results) {
      emit({
        bench: BENCH,
        metric: `${r.attack}_worst_healthz_ms`,
        value: Math.round(r.worstHealthzMs * 10) / 10,
        unit: 'ms',
        requests: r.requests,
        statuses: JSON.stringify(r.statuses),
        elapsed_ms: Math.round(r.elapsedMs),
      });
    }
    const worst = Math.max(...results.map((r) => r.worstHealthzMs));
    emit({
      bench: BENCH,
      metric: 'worst_healthz_stall_ms',
      value: Math.round(worst * 10) / 10,
      unit: 'ms',
      target_ms: STALL_TARGET_MS,
      within_target: worst <= STALL_TARGET_MS,
    });
  } finally {
    await stopChild(vault.child);
  }
}
