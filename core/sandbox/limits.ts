/** Limits of one sandboxed invocation. Defaults are defined here and nowhere else. */
export interface SandboxLimits {
  /** Fixed WebAssembly memory of the QuickJS module, in bytes (a multiple of 64 KiB). */
  readonly memoryBytes: number;
  /** Wall-clock budget of one invocation, host calls included, in milliseconds. */
  readonly timeoutMs: number;
  /** Largest JSON text the code may return, in bytes (UTF-16 units, an upper bound of UTF-8 size / 3). */
  readonly outputBytes: number;
  /** Host calls (svc, fetch) one invocation may make in all, and at the same time. */
  readonly hostCalls: number;
  readonly concurrentHostCalls: number;
}

export const DEFAULT_SANDBOX_MEMORY_BYTES = 64 * 1024 * 1024;
export const DEFAULT_SANDBOX_TIMEOUT_MS = 30_000;
export const DEFAULT_SANDBOX_OUTPUT_BYTES = 1024 * 1024;
export const DEFAULT_SANDBOX_HOST_CALLS = 1000;
export const DEFAULT_SANDBOX_CONCURRENT_HOST_CALLS = 32;
/** Budget of checking formula code (compile + evaluate the module body) on create and update. */
export const CODE_CHECK_TIMEOUT_MS = 2000;
/** QuickJS's own stack cap; far below the worker thread's native stack. */
export const SANDBOX_STACK_BYTES = 512 * 1024;
/** Memory QuickJS keeps free of the fixed WebAssembly memory for its own bookkeeping. */
export const SANDBOX_MEMORY_HEADROOM_BYTES = 4 * 1024 * 1024;
/** Extra time the host waits for a worker past the deadline before it terminates the thread. */
export const SANDBOX_TERMINATE_GRACE_MS = 1000;
/**
 * Extra time a new worker thread has for its first run: it loads its module graph and compiles
 * QuickJS's WebAssembly before the run's own deadline starts counting, which takes seconds on a
 * loaded machine. The run's deadline itself is unchanged (the worker's interrupt handler keeps it).
 */
export const SANDBOX_WORKER_START_MS = 30_000;

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  memoryBytes: DEFAULT_SANDBOX_MEMORY_BYTES,
  timeoutMs: DEFAULT_SANDBOX_TIMEOUT_MS,
  outputBytes: DEFAULT_SANDBOX_OUTPUT_BYTES,
  hostCalls: DEFAULT_SANDBOX_HOST_CALLS,
  concurrentHostCalls: DEFAULT_SANDBOX_CONCURRENT_HOST_CALLS,
};

/**
 * How the pool of worker threads is shared (one pool runs reactors, proxy transforms and code
 * checks of every tenant; see fair-queue.ts).
 */
export interface SandboxPoolLimits {
  /** Worker threads. */
  readonly workers: number;
  /** Runs one tenant may have on workers at once; below `workers`, so another tenant finds one. */
  readonly runningPerTenant: number;
  /** Runs one tenant may have running and waiting together; more are refused (429). */
  readonly pendingPerTenant: number;
  /** Runs waiting for a worker, all tenants together; more are refused (429). */
  readonly queued: number;
}

/** Workers: one per core up to 4, plus one that no single tenant can take. */
export function defaultSandboxWorkers(cores: number): number {
  return Math.max(1, Math.min(4, cores)) + 1;
}

/** All workers but one (with a single worker, that one: there is nothing to share). */
export function runningPerTenantFor(workers: number): number {
  return Math.max(1, workers - 1);
}

export const DEFAULT_SANDBOX_PENDING_PER_TENANT = 32;
export const DEFAULT_SANDBOX_QUEUED = 128;

/** The pool's limits: `limits` over the defaults for a machine with `cores` cores. */
export function sandboxPoolLimits(cores: number, limits: Partial<SandboxPoolLimits> = {}): SandboxPoolLimits {
  const workers = limits.workers ?? defaultSandboxWorkers(cores);
  return {
    workers,
    runningPerTenant: limits.runningPerTenant ?? runningPerTenantFor(workers),
    pendingPerTenant: limits.pendingPerTenant ?? DEFAULT_SANDBOX_PENDING_PER_TENANT,
    queued: limits.queued ?? DEFAULT_SANDBOX_QUEUED,
  };
}

/** Bounds of the `reactorTimeoutMs` and `reactorMemoryMb` settings. */
export const MAX_SANDBOX_TIMEOUT_MS = 10 * 60 * 1000;
export const MIN_SANDBOX_MEMORY_MB = 16;
export const MAX_SANDBOX_MEMORY_MB = 1024;

/** The limits the operator's settings choose (the rest keep their defaults). */
export function limitsFromSettings(settings: {
  readonly reactorTimeoutMs: number;
  readonly reactorMemoryMb: number;
}): Partial<SandboxLimits> {
  return { timeoutMs: settings.reactorTimeoutMs, memoryBytes: settings.reactorMemoryMb * 1024 * 1024 };
}

const PAGE = 64 * 1024;

/** `limits` over the defaults, checked: a bad value is a programming or configuration error. */
export function sandboxLimits(limits: Partial<SandboxLimits> = {}): SandboxLimits {
  const merged = { ...DEFAULT_SANDBOX_LIMITS, ...limits };
  for (const [name, value] of Object.entries(merged)) {
    if (!Number.isSafeInteger(value) || value <= 0)
      throw new RangeError(`sandbox ${name} must be a positive integer`);
  }
  if (merged.memoryBytes % PAGE !== 0 || merged.memoryBytes < 8 * 1024 * 1024) {
    throw new RangeError('sandbox memoryBytes must be a multiple of 64 KiB and at least 8 MiB');
  }
  return merged;
}
