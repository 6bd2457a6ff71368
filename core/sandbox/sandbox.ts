/**
 * The host side of the sandbox: a small pool of worker threads, each running QuickJS (engine.ts),
 * so formula code never runs on the caller's event loop. One run per worker at a time; extra runs
 * wait in a queue that is fair across tenants (fair-queue.ts): a tenant never holds every worker,
 * waiting runs are taken round-robin across tenants, and a tenant's running and waiting runs are
 * capped (RATE_LIMITED beyond). Host calls from the code (`svc.*`, `fetch`) arrive as messages and
 * are answered here, on the caller's side, through the functions handed in for that run only.
 *
 * A worker that does not report by the deadline plus a grace period (plus its start-up, on its first
 * run) is terminated and replaced (the interrupt handler normally ends the run well before).
 *
 * Each worker makes the fresh context of its next run while it is idle (worker.ts), so a run's
 * latency is compiling and calling the formula, not building a runtime and evaluating the prelude.
 */
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { VaultError, isVaultError } from '../errors/catalogue.ts';
import { RateLimitedError } from '../errors/rate-limited.ts';
import { startWorker } from '../threads/start-worker.ts';
import { FairQueue } from './fair-queue.ts';
import type { Refusal } from './fair-queue.ts';
import {
  CODE_CHECK_TIMEOUT_MS,
  SANDBOX_TERMINATE_GRACE_MS,
  SANDBOX_WORKER_START_MS,
  sandboxLimits,
  sandboxPoolLimits,
} from './limits.ts';
import type { SandboxLimits, SandboxPoolLimits } from './limits.ts';
import { compiledQuickJs } from './quickjs-wasm.ts';
import { SANDBOX_FETCH_MAX_RESPONSE_BYTES, SANDBOX_FETCH_TIMEOUT_MS, refuseOutbound } from './outbound.ts';
import type { OutboundFetch, OutboundRequest } from './outbound.ts';
import { checkProblem, outcomeOf } from './outcome.ts';
import type { SandboxOutcome } from './outcome.ts';
import type { SvcMethod } from './prelude.ts';
import type {
  CallMessage,
  HostCallError,
  HostToWorker,
  RunMessage,
  RunResult,
  WorkerData,
  WorkerToHost,
} from './protocol.ts';

/** The `svc` client's host side for one run: resolves with a JSON-serialisable value. */
export type SvcBridge = (method: SvcMethod, args: readonly unknown[]) => Promise<unknown>;

export interface RunModuleRequest {
  /** Whose run this is (the tenant): the pool is shared fairly between owners. */
  readonly tenant: string;
  readonly code: string;
  /** `req.args` (JSON). */
  readonly args: unknown;
  /** `req.configuration` (JSON object). */
  readonly configuration: Readonly<Record<string, unknown>>;
  /** `req.svc`; null gives the code `req.svc === null`. */
  readonly svc: SvcBridge | null;
  /** Per-run overrides of the sandbox's limits. */
  readonly limits?: Partial<SandboxLimits>;
}

export interface SandboxOptions {
  readonly limits?: Partial<SandboxLimits>;
  /** Worker threads; default min(4, available parallelism) + 1 (limits.ts). */
  readonly workers?: number;
  /** How tenants share the workers (limits.ts, SandboxPoolLimits); defaults follow `workers`. */
  readonly pool?: Partial<Omit<SandboxPoolLimits, 'workers'>>;
  /** The network behind `fetch`; default: refused. */
  readonly fetch?: OutboundFetch;
}

/**
 * Both calls throw RATE_LIMITED (429, with `retryAfterSeconds`) when the owner already has
 * `pendingPerTenant` runs running or waiting, or the pool's queue is full.
 */
export interface Sandbox {
  readonly limits: SandboxLimits;
  /** Null when the code compiles, loads and exports one function; else the 422 problem. */
  checkModuleCode(code: string, tenant: string): Promise<VaultError | null>;
  runModule(request: RunModuleRequest): Promise<SandboxOutcome>;
  /** Terminates the workers; runs still in flight end as crashed. */
  close(): Promise<void>;
}

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

function hostError(error: unknown): HostCallError {
  if (isVaultError(error)) {
    return {
      name: 'SvcError',
      // A 5xx detail may name internals (a refused row's table and key): the code gets the title,
      // as an HTTP caller gets a generic detail.
      message: error.status >= 500 ? error.title : error.detail,
      status: error.status,
      code: error.code,
      ...(error.errors === undefined ? {} : { errors: error.errors }),
    };
  }
  return { name: 'Error', message: 'The host call failed.' };
}

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const limits = sandboxLimits(options.limits);
  const pool = sandboxPoolLimits(availableParallelism(), {
    ...options.pool,
    ...(options.workers === undefined ? {} : { workers: options.workers }),
  });
  const size = pool.workers;
  const outbound = options.fetch ?? refuseOutbound;
  const slots: Slot[] = [];
  const queue = new FairQueue<Job>(pool);
  let nextRunId = 1;
  let closed = false;
  // Workers start with the process's compiled QuickJS, looked up when the first one is needed (a
  // vault that never runs code never compiles it); runs wait in the queue meanwhile.
  let quickJs: { readonly module: WebAssembly.Module | undefined } | undefined;
  let lookingUpQuickJs = false;
  const quickJsReady = (): boolean => {
    if (quickJs !== undefined) return true;
    if (!lookingUpQuickJs) {
      lookingUpQuickJs = true;
      void compiledQuickJs().then((module) => {
        quickJs = { module };
        dispatch();
      });
    }
    return false;
  };

  const answer = (slot: Slot, call: CallMessage): void => {
    const job = slot.job;
    if (job === undefined || job.message.runId !== call.runId) return;
    const reply = (message: HostToWorker): void => {
      // The run may have ended (deadline) while the host call was in flight.
      if (slot.job === job) slot.worker.postMessage(message);
    };
    const work = async (): Promise<unknown> => {
      const args: unknown = JSON.parse(call.argsJson);
      if (!Array.isArray(args))
        throw new VaultError('VALIDATION_FAILED', 'Host call arguments must be a list.');
      if (call.target === 'fetch') return fetchFor(args[0], job.message.limits);
      if (job.svc === null)
        throw new VaultError('VALIDATION_FAILED', 'This reactor has no application: req.svc is null.');
      return job.svc(call.target.slice('svc.'.length) as SvcMethod, args);
    };
    work().then(
      (value) =>
        reply({
          type: 'reply',
          runId: call.runId,
          callId: call.callId,
          ok: true,
          json: JSON.stringify(value ?? null),
        }),
      (error: unknown) =>
        reply({ type: 'reply', runId: call.runId, callId: call.callId, ok: false, error: hostError(error) }),
    );
  };

  const fetchFor = async (raw: unknown, runLimits: SandboxLimits): Promise<unknown> => {
    const r = raw as Partial<Record<keyof OutboundRequest, unknown>> | undefined;
    if (typeof r?.url !== 'string' || typeof r.method !== 'string' || !Array.isArray(r.headers)) {
      throw new VaultError('VALIDATION_FAILED', 'fetch needs a URL.');
    }
    const headers = (r.headers as unknown[]).filter(
      (pair): pair is [string, string] =>
        Array.isArray(pair) && typeof pair[0] === 'string' && typeof pair[1] === 'string',
    );
    const response = await outbound({
      url: r.url,
      method: r.method,
      headers,
      body: typeof r.body === 'string' ? r.body : null,
      timeoutMs: Math.min(SANDBOX_FETCH_TIMEOUT_MS, runLimits.timeoutMs),
      maxResponseBytes: Math.min(SANDBOX_FETCH_MAX_RESPONSE_BYTES, runLimits.outputBytes),
    });
    if (Buffer.byteLength(response.body, 'utf8') > SANDBOX_FETCH_MAX_RESPONSE_BYTES) {
      throw new VaultError('PAYLOAD_TOO_LARGE', 'The fetched response body is too large.');
    }
    return response;
  };

  const finish = (slot: Slot, result: RunResult): void => {
    const job = slot.job;
    if (job === undefined) return;
    clearTimeout(slot.timer);
    slot.warm = true;
    slot.job = undefined;
    slot.timer = undefined;
    slot.worker.unref();
    queue.done(job.tenant);
    job.resolve(result);
    dispatch();
  };

  const replace = (slot: Slot, result: RunResult): void => {
    const index = slots.indexOf(slot);
    if (index >= 0) slots.splice(index, 1);
    void slot.worker.terminate();
    finish(slot, result);
  };

  const spawn = (): Slot => {
    const module = quickJs?.module;
    const worker = newWorker(
      module === undefined
        ? { memoryBytes: limits.memoryBytes }
        : { memoryBytes: limits.memoryBytes, quickJs: module },
    );
    const slot: Slot = { worker, job: undefined, timer: undefined, deadline: 0, warm: false };
    worker.on('message', (message: WorkerToHost) => {
      if (message.type === 'call') answer(slot, message);
      else if (slot.job?.message.runId === message.runId) finish(slot, message.result);
    });
    worker.on('error', () => replace(slot, { kind: 'crashed' }));
    worker.on('exit', () => replace(slot, { kind: 'crashed' }));
    // Idle workers never keep the process alive; a worker with a job does (see dispatch/finish).
    // After the listeners: adding a 'message' listener refs the worker again.
    worker.unref();
    slots.push(slot);
    return slot;
  };

  const dispatch = (): void => {
    while (!closed && queue.hasRunnable()) {
      const slot =
        slots.find((s) => s.job === undefined) ??
        (slots.length < size && quickJsReady() ? spawn() : undefined);
      if (slot === undefined) return;
      const { job } = queue.next() as { job: Job };
      slot.job = job;
      const wait = job.message.limits.timeoutMs + (slot.warm ? 0 : SANDBOX_WORKER_START_MS);
      slot.deadline = Date.now() + wait;
      slot.timer = setTimeout(() => replace(slot, { kind: 'timeout' }), wait + SANDBOX_TERMINATE_GRACE_MS);
      slot.timer.unref();
      slot.worker.ref();
      slot.worker.postMessage(job.message);
    }
  };

  /** Seconds until a run that blocks `tenant` (or, for a full queue, any run) reaches its deadline. */
  const retryAfter = (refusal: Refusal, tenant: string): number => {
    const ends = slots
      .filter((slot) => slot.job !== undefined && (refusal === 'queue' || slot.job.tenant === tenant))
      .map((slot) => slot.deadline);
    const wait = ends.length === 0 ? 0 : Math.min(...ends) - Date.now();
    return Math.max(1, Math.ceil(wait / 1000));
  };

  const refusalOf = (refusal: Refusal, tenant: string): RateLimitedError => {
    const seconds = retryAfter(refusal, tenant);
    const why =
      refusal === 'tenant'
        ? `This tenant already has ${pool.pendingPerTenant} runs of code (reactors, proxy transforms) running or waiting.`
        : 'The sandbox is busy: too many runs of code are waiting.';
    return new RateLimitedError(seconds, `${why} Try again in ${seconds} second${seconds === 1 ? '' : 's'}.`);
  };

  const submit = (
    tenant: string,
    fields: Omit<RunMessage, 'type' | 'runId'>,
    svc: SvcBridge | null,
  ): Promise<RunResult> => {
    if (closed) return Promise.reject(new VaultError('VAULT_CLOSED', 'The sandbox is closed.'));
    return new Promise((resolve, reject) => {
      const message: RunMessage = { type: 'run', runId: nextRunId, ...fields };
      const refusal = queue.admit(tenant, { tenant, message, svc, resolve });
      if (refusal !== null) {
        reject(refusalOf(refusal, tenant));
        return;
      }
      nextRunId += 1;
      dispatch();
    });
  };

  return {
    limits,
    async checkModuleCode(code, tenant) {
      const checkLimits = { ...limits, timeoutMs: Math.min(limits.timeoutMs, CODE_CHECK_TIMEOUT_MS) };
      const result = await submit(
        tenant,
        {
          code,
          argsJson: '{}',
          configurationJson: '{}',
          hasSvc: false,
          checkOnly: true,
          limits: checkLimits,
        },
        null,
      );
      return checkProblem(result, checkLimits);
    },
    async runModule(request) {
      const runLimits = sandboxLimits({ ...limits, ...request.limits });
      const result = await submit(
        request.tenant,
        {
          code: request.code,
          argsJson: JSON.stringify(request.args ?? {}),
          configurationJson: JSON.stringify(request.configuration),
          hasSvc: request.svc !== null,
          checkOnly: false,
          limits: runLimits,
        },
        request.svc,
      );
      return outcomeOf(result, runLimits);
    },
    async close() {
      closed = true;
      for (const job of queue.drain()) job.resolve({ kind: 'crashed' });
      await Promise.all([...slots].map((slot) => slot.worker.terminate()));
    },
  };
}
