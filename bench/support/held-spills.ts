/**
 * A diagnostic, never a configuration: with SVC_BENCH_HOLD_SPILLS=1 a bench vault keeps every audit
 * entry in sql.js (no move to segment files while it serves), so a run measures what moving them
 * costs a route. Memory then grows with every entry: only for runs of seconds.
 */
import type { AuditSegmentLimits } from '../../core/audit/segments/limits.ts';

/** The audit-segment limits a bench vault opens with: spills held back when asked. */
export function benchAuditSegments(): { auditSegments?: Partial<AuditSegmentLimits> } {
  return process.env.SVC_BENCH_HOLD_SPILLS === '1'
    ? { auditSegments: { spillThresholdRows: Number.MAX_SAFE_INTEGER } }
    : {};
}
