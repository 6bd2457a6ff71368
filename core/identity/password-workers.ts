import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { RateLimitedError } from '../errors/rate-limited.ts';

export type PasswordJob =
  | { readonly op: 'hash'; readonly password: string; readonly opsLimit: number; readonly memLimit: number }
  | { readonly op: 'verify'; readonly password: string; readonly stored: string };

type Reply = { id: number; ok: true; value: string | boolean } | { id: number; ok: false; error: string };

/**
 * The worker's whole program, plain CommonJS on purpose: it needs nothing but libsodium, and as
 * source text it runs the same under tsx, vitest and the built `dist/` without a TypeScript loader
 * in the worker. A wrong password is `false`, never an error; a malformed stored hash too.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const sodium = require(workerData.sodiumPath);
parentPort.on('message', async (job) => {
  await sodium.ready;
  try {
    if (job.op === 'hash') {
      parentPort.postMessage({ id: job.id, ok: true,
        value: sodium.crypto_pwhash_str(job.password, job.opsLimit, job.memLimit) });
    } else {
      let value = false;
      try { value = sodium.crypto_pwhash_str_verify(job.stored, job.password); } catch { value = false; }
      parentPort.postMessage({ id: job.id, ok: true, value });
    }
  } catch (error) {
    parentPort.postMessage({ id: job.id, ok: false, error: String(error && error.message || error) });
  }
});
`;

interface Pending {
  readonly id: number;
  readonly job: PasswordJob;
  resolve(value: string | boolean): void;
  reject(error: Error): void;
}

interface Slot {
  readonly worker: Worker;
  current: Pending | null;
}

export interface PasswordWorkerLimits {
  /** Threads hashing at once: each Argon2id run takes one core and its memory limit (64 MiB). */
  readonly size: number;
  /** Jobs waiting for a thread; beyond this a caller is told to retry (RATE_LIMITED), not queued. */
  readonly maxQueue: number;
}

/**
 * At most two threads, and always one core left for the event loop (one thread on a two-core
 * machine): a sign-in flood then costs throughput of sign-ins only. 32 waiting is a few seconds of work.
 */
export const PASSWORD_WORKER_LIMITS: PasswordWorkerLimits = {
  size: Math.max(1, Math.min(2, availableParallelism() - 1)),
  maxQueue: 32,
};

/**
 * A small pool of worker threads for Argon2id, so that a sign-in (far more CPU than the event loop
 * may be held for; `bench/password-kdf.ts`) never blocks it. Threads start on first use and are
 * unref'd while idle: an idle pool never keeps the process alive. A thread that dies fails its job
 * and is replaced on the next one.
 */
export class PasswordWorkers {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private readonly sodiumPath = createRequire(import.meta.url).resolve('libsodium-wrappers-sumo');

  constructor(private readonly limits: PasswordWorkerLimits = PASSWORD_WORKER_LIMITS) {}

  run(job: PasswordJob): Promise<string | boolean> {
    if (this.queue.length >= this.limits.maxQueue)
      return Promise.reject(
        new RateLimitedError(1, 'The server is busy checking passwords. Try again in 1 second.'),
      );
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, job, resolve, reject });
      this.dispatch();
    });
  }

  /** Jobs waiting and running, for tests of the bound. */
  get load(): { queued: number; running: number } {
    return { queued: this.queue.length, running: this.slots.filter((s) => s.current).length };
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const slot = this.slots.find((s) => s.current === null) ?? this.spawn();
      if (!slot) return;
      const pending = this.queue.shift() as Pending;
      slot.current = pending;
      // Held while busy, so a CLI awaiting a hash does not exit under it; let go when idle.
      slot.worker.ref();
      slot.worker.postMessage({ id: pending.id, ...pending.job });
    }
  }

  private spawn(): Slot | undefined {
    if (this.slots.length >= this.limits.size) return undefined;
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { sodiumPath: this.sodiumPath } });
    const slot: Slot = { worker, current: null };
    worker.on('message', (reply: Reply) => {
      const pending = slot.current;
      if (!pending || pending.id !== reply.id) return;
      slot.current = null;
      worker.unref();
      if (reply.ok) pending.resolve(reply.value);
      else pending.reject(new Error(`password hashing failed: ${reply.error}`));
      this.dispatch();
    });
    const fail = (error: Error) => {
      const index = this.slots.indexOf(slot);
      if (index >= 0) this.slots.splice(index, 1);
      slot.current?.reject(error);
      slot.current = null;
      this.dispatch();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`password worker stopped (exit code ${code})`)));
    this.slots.push(slot);
    return slot;
  }
}
