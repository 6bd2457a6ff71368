/**
 * The sandbox's pool of worker threads, each running QuickJS (engine.ts), so formula code never
 * runs on the caller's event loop. One run per worker at a time; extra runs wait in a queue that is
 * fair across tenants (fair-queue.ts): a tenant never holds every worker, waiting runs are taken
 * round-robin across tenants, and a tenant's running and waiting runs are capped (RATE_LIMITED
 * beyond). Host calls from the code arrive as messages and are answered by host-calls.ts.
 *
 * A worker that does not report by the deadline plus a grace period (plus its start-up, on its first
 * run) is terminated and replaced (the interrupt handler normally ends the run well before).
 *
 * Each worker makes the fresh context of its next run while it is idle (worker.ts), so a run's
 * latency is compiling and calling the formula, not building a runtime and evaluating the prelude.
 */
import type { Worker } from 'node:worker_threads';
import { VaultError } from '../errors/catalogue.ts';
import { RateLimitedError } from '../errors/rate-limited.ts';
import { startWorker } from '../threads/start-worker.ts';
import { FairQueue } from './fair-queue.ts';
import type { Refusal } from './fair-queue.ts';
import { answerHostCall } from './host-calls.ts';
import type { SvcBridge } from './host-calls.ts';
import { SANDBOX_TERMINATE_GRACE_MS, SANDBOX_WORKER_START_MS } from './limits.ts';
import type { SandboxLimits, SandboxPoolLimits } from './limits.ts';
import type { OutboundFetch } from './outbound.ts';
import type { CallMessage, RunMessage, RunResult, WorkerData, WorkerToHost } from './protocol.ts';
import { compiledQuickJs } from './quickjs-wasm.ts';

interface Job {
  readonly tenant: string;
  readonly message: RunMessage;
  readonly svc: SvcBridge | null;
  readonly resolve: (result: RunResult) => void;
}

interface Slot {
  readonly worker: Worker;
  job: Job | undefined;
  timer: NodeJS.Timeout | undefined;
  /** When the job's deadline passes (epoch ms), for telling refused callers how long to wait. */
  deadline: number;
  /** Whether the worker has reported a run (its start-up is behind it). */
  warm: boolean;
}

/** A new worker thread running worker.ts (or worker.js once built). */
function newWorker(data: WorkerData): Worker {
  const resourceLimits = { stackSizeMb: 8, maxOldGenerationSizeMb: 256 };
  return startWorker(import.meta.url, 'worker', { resourceLimits, workerData: data });
}

export class WorkerPool {
  private readonly slots: Slot[] = [];
  private readonly queue: FairQueue<Job>;
  private nextRunId = 1;
  private closed = false;
  // Workers start with the process's compiled QuickJS, looked up when the first one is needed (a
  // vault that never runs code never compiles it); runs wait in the queue meanwhile.
  private quickJs: { readonly module: WebAssembly.Module | undefined } | undefined;
  private lookingUpQuickJs = false;

  constructor(
    private readonly limits: SandboxLimits,
    private readonly pool: SandboxPoolLimits,
    private readonly outbound: OutboundFetch,
  ) {
    this.queue = new FairQueue<Job>(pool);
  }

  /** Queues a run of `tenant`; rejects with RATE_LIMITED when the fair queue refuses it. */
  submit(
    tenant: string,
    fields: Omit<RunMessage, 'type' | 'runId'>,
    svc: SvcBridge | null,
  ): Promise<RunResult> {
    if (this.closed) return Promise.reject(new VaultError('VAULT_CLOSED', 'The sandbox is closed.'));
    return new Promise((resolve, reject) => {
      const message: RunMessage = { type: 'run', runId: this.nextRunId, ...fields };
      const refusal = this.queue.admit(tenant, { tenant, message, svc, resolve });
      if (refusal !== null) {
        reject(this.refusalOf(refusal, tenant));
        return;
      }
      this.nextRunId += 1;
      this.dispatch();
    });
  }

  /** Terminates the workers; runs still in flight or waiting end as crashed. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.drain()) job.resolve({ kind: 'crashed' });
    await Promise.all([...this.slots].map((slot) => slot.worker.terminate()));
  }

  private quickJsReady(): boolean {
    if (this.quickJs !== undefined) return true;
    if (!this.lookingUpQuickJs) {
      this.lookingUpQuickJs = true;
      void compiledQuickJs().then((module) => {
        this.quickJs = { module };
        this.dispatch();
      });
    }
    return false;
  }

  private answer(slot: Slot, call: CallMessage): void {
    const job = slot.job;
    if (job === undefined || job.message.runId !== call.runId) return;
    answerHostCall(call, { svc: job.svc, limits: job.message.limits, outbound: this.outbound }, (message) => {
      // The run may have ended (deadline) while the host call was in flight.
      if (slot.job === job) slot.worker.postMessage(message);
    });
  }

  private finish(slot: Slot, result: RunResult): void {
    const job = slot.job;
    if (job === undefined) return;
    clearTimeout(slot.timer);
    slot.warm = true;
    slot.job = undefined;
    slot.timer = undefined;
    slot.worker.unref();
    this.queue.done(job.tenant);
    job.resolve(result);
    this.dispatch();
  }

  private replace(slot: Slot, result: RunResult): void {
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
    void slot.worker.terminate();
    this.finish(slot, result);
  }

  private spawn(): Slot {
    const module = this.quickJs?.module;
    const { memoryBytes } = this.limits;
    const worker = newWorker(module === undefined ? { memoryBytes } : { memoryBytes, quickJs: module });
    const slot: Slot = { worker, job: undefined, timer: undefined, deadline: 0, warm: false };
    worker.on('message', (message: WorkerToHost) => {
      if (message.type === 'call') this.answer(slot, message);
      else if (slot.job?.message.runId === message.runId) this.finish(slot, message.result);
    });
    worker.on('error', () => this.replace(slot, { kind: 'crashed' }));
    worker.on('exit', () => this.replace(slot, { kind: 'crashed' }));
    // Idle workers never keep the process alive; a worker with a job does (see dispatch/finish).
    // After the listeners: adding a 'message' listener refs the worker again.
    worker.unref();
    this.slots.push(slot);
    return slot;
  }

  private dispatch(): void {
    while (!this.closed && this.queue.hasRunnable()) {
      const slot =
        this.slots.find((s) => s.job === undefined) ??
        (this.slots.length < this.pool.workers && this.quickJsReady() ? this.spawn() : undefined);
      if (slot === undefined) return;
      const { job } = this.queue.next() as { job: Job };
      slot.job = job;
      const wait = job.message.limits.timeoutMs + (slot.warm ? 0 : SANDBOX_WORKER_START_MS);
      slot.deadline = Date.now() + wait;
      slot.timer = setTimeout(
        () => this.replace(slot, { kind: 'timeout' }),
        wait + SANDBOX_TERMINATE_GRACE_MS,
      );
      slot.timer.unref();
      slot.worker.ref();
      slot.worker.postMessage(job.message);
    }
  }

  /** Seconds until a run that blocks `tenant` (or, for a full queue, any run) reaches its deadline. */
  private retryAfter(refusal: Refusal, tenant: string): number {
    const ends = this.slots
      .filter((slot) => slot.job !== undefined && (refusal === 'queue' || slot.job.tenant === tenant))
      .map((slot) => slot.deadline);
    const wait = ends.length === 0 ? 0 : Math.min(...ends) - Date.now();
    return Math.max(1, Math.ceil(wait / 1000));
  }

  private refusalOf(refusal: Refusal, tenant: string): RateLimitedError {
    const seconds = this.retryAfter(refusal, tenant);
    const why =
      refusal === 'tenant'
        ? `This tenant already has ${this.pool.pendingPerTenant} runs of code (reactors, proxy transforms) running or waiting.`
        : 'The sandbox is busy: too many runs of code are waiting.';
    return new RateLimitedError(seconds, `${why} Try again in ${seconds} second${seconds === 1 ? '' : 's'}.`);
  }
}
