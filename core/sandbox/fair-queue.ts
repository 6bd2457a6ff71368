/**
 * The order in which the sandbox pool's workers take runs, fair across tenants (or any other owner
 * of runs): one tenant's endless loops must not hold every worker while another tenant waits.
 *
 * - A tenant has at most `runningPerTenant` runs on workers at once; the pool keeps it below the
 *   number of workers, so a worker is left for any other tenant.
 * - Waiting runs are taken round-robin across tenants: after a tenant's run starts, every other
 *   tenant with a run waiting (and below its running cap) goes first.
 * - A tenant has at most `pendingPerTenant` runs running and waiting together, and at most
 *   `queued` runs wait in all; beyond either, `admit` refuses and nothing is kept, so memory does
 *   not grow with traffic.
 */
export interface FairQueueLimits {
  readonly runningPerTenant: number;
  readonly pendingPerTenant: number;
  readonly queued: number;
}

/** Why a run was not admitted. */
export type Refusal = 'tenant' | 'queue';

export class FairQueue<J> {
  /** Waiting runs per tenant; the Map's order is the round-robin order (served tenants move last). */
  private readonly waiting = new Map<string, J[]>();
  private readonly running = new Map<string, number>();
  private waitingCount = 0;

  constructor(private readonly limits: FairQueueLimits) {
    for (const [name, value] of Object.entries(limits)) {
      if (!Number.isSafeInteger(value) || value < 1)
        throw new RangeError(`sandbox pool ${name} must be a whole number ≥ 1`);
    }
  }

  /** Queues `job` of `tenant`, or says why not (nothing is kept then). */
  admit(tenant: string, job: J): Refusal | null {
    const queue = this.waiting.get(tenant);
    const pending = (queue?.length ?? 0) + (this.running.get(tenant) ?? 0);
    if (pending >= this.limits.pendingPerTenant) return 'tenant';
    if (this.waitingCount >= this.limits.queued) return 'queue';
    if (queue === undefined) this.waiting.set(tenant, [job]);
    else queue.push(job);
    this.waitingCount += 1;
    return null;
  }

  /** Whether a free worker would find a run to take. */
  hasRunnable(): boolean {
    for (const tenant of this.waiting.keys()) if (this.mayRun(tenant)) return true;
    return false;
  }

  /** The next run for a free worker (counted as running until `done`), or undefined. */
  next(): { readonly tenant: string; readonly job: J } | undefined {
    for (const [tenant, queue] of this.waiting) {
      if (!this.mayRun(tenant)) continue;
      const job = queue.shift() as J;
      this.waitingCount -= 1;
      this.waiting.delete(tenant);
      // Re-inserted at the end: every other waiting tenant comes before its next run.
      if (queue.length > 0) this.waiting.set(tenant, queue);
      this.running.set(tenant, (this.running.get(tenant) ?? 0) + 1);
      return { tenant, job };
    }
    return undefined;
  }

  /** A run of `tenant` left its worker. */
  done(tenant: string): void {
    const count = (this.running.get(tenant) ?? 0) - 1;
    if (count > 0) this.running.set(tenant, count);
    else this.running.delete(tenant);
  }

  /** Every waiting run, removed (the pool is closing). */
  drain(): J[] {
    const jobs = [...this.waiting.values()].flat();
    this.waiting.clear();
    this.waitingCount = 0;
    return jobs;
  }

  /** Runs waiting, all tenants together. */
  get size(): number {
    return this.waitingCount;
  }

  private mayRun(tenant: string): boolean {
    return (this.running.get(tenant) ?? 0) < this.limits.runningPerTenant;
  }
}
