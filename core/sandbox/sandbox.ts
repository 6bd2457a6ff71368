/**
 * The sandbox: user code (reactor formulas, proxy transforms) run in QuickJS in a pool of worker
 * threads (worker-pool.ts) under limits (limits.ts), with host calls answered on the caller's side
 * (host-calls.ts).
 */
import { availableParallelism } from 'node:os';
import type { VaultError } from '../errors/catalogue.ts';
import type { SvcBridge } from './host-calls.ts';
import { CODE_CHECK_TIMEOUT_MS, sandboxLimits, sandboxPoolLimits } from './limits.ts';
import type { SandboxLimits, SandboxPoolLimits } from './limits.ts';
import { refuseOutbound } from './outbound.ts';
import type { OutboundFetch } from './outbound.ts';
import { checkProblem, outcomeOf } from './outcome.ts';
import type { SandboxOutcome } from './outcome.ts';
import { WorkerPool } from './worker-pool.ts';

export type { SvcBridge } from './host-calls.ts';

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

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const limits = sandboxLimits(options.limits);
  const pool = sandboxPoolLimits(availableParallelism(), {
    ...options.pool,
    ...(options.workers === undefined ? {} : { workers: options.workers }),
  });
  const workers = new WorkerPool(limits, pool, options.fetch ?? refuseOutbound);
  return {
    limits,
    async checkModuleCode(code, tenant) {
      const checkLimits = { ...limits, timeoutMs: Math.min(limits.timeoutMs, CODE_CHECK_TIMEOUT_MS) };
      const result = await workers.submit(
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
      const result = await workers.submit(
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
    close: () => workers.close(),
  };
}
