/**
 * Runs formula code in QuickJS (quickjs-emscripten, release build). Used inside a sandbox worker
 * thread: it blocks while QuickJS runs, so it must never run on the server's event loop.
 *
 * - One WebAssembly module per worker, with a FIXED memory of `limits.memoryBytes` (initial =
 *   maximum): no allocation can grow it, whatever QuickJS's own accounting says. QuickJS's limit is
 *   set a little lower so that most memory bombs end as a catchable "out of memory" first.
 * - A fresh runtime and context per run, disposed afterwards: nothing survives between invocations.
 *   The next run's context is made ahead of time while the worker is idle (runtime, context, host
 *   functions, prelude): it has run only the vault's prelude, never any invocation's code or data.
 * - The interrupt handler ends execution at the deadline (also inside endless loops); the stack cap
 *   ends deep recursion before the thread's native stack.
 * - Host calls are QuickJS promises settled when the host's reply arrives; pending jobs run after
 *   each reply.
 * A module that failed at the host level (a WebAssembly trap, a failed dispose) is dropped and
 * rebuilt with fresh memory for the next run.
 */
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { RELEASE_SYNC, newQuickJSWASMModuleFromVariant, newVariant } from 'quickjs-emscripten';
import type {
  CustomizeVariantOptions,
  QuickJSContext,
  QuickJSDeferredPromise,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSWASMModule,
} from 'quickjs-emscripten';
import { SANDBOX_MEMORY_HEADROOM_BYTES, SANDBOX_STACK_BYTES } from './limits.ts';
import { positionInCode, wrappedPosition } from './code-position.ts';
import { CODE_PREFIX, CODE_SUFFIX, PRELUDE, PRELUDE_MODULES, SVC_METHODS } from './prelude.ts';
import type { PreludeModule } from './prelude.ts';
import type {
  CallMessage,
  HostCallError,
  HostTarget,
  ReplyMessage,
  RunMessage,
  RunResult,
} from './protocol.ts';

const PAGE = 64 * 1024;

/** A WebAssembly memory as quickjs-emscripten's variant options type it. */
type WasmMemoryValue = Exclude<CustomizeVariantOptions['wasmMemory'], undefined | (() => unknown)>;

/** The WebAssembly.Memory constructor (the Node typings in use declare no value for it). */
const WasmMemory = (
  globalThis as unknown as {
    WebAssembly: { Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemoryValue };
  }
).WebAssembly.Memory;
const HASHES = new Set(['md5', 'sha1', 'sha256', 'sha384', 'sha512']);
const ENCODINGS = new Set(['hex', 'base64', 'base64url']);
/** Largest `crypto.randomBytes` request. */
const MAX_RANDOM_BYTES = 65_536;
const TARGETS = new Set<string>(['fetch', ...SVC_METHODS.map((m) => `svc.${m}`)]);

function isTarget(value: string): value is HostTarget {
  return TARGETS.has(value);
}

function isPreludeModule(value: string): value is PreludeModule {
  return Object.hasOwn(PRELUDE_MODULES, value);
}

/** What the host functions of a prepared context need once a run has taken it. */
interface RunState {
  readonly message: RunMessage;
  readonly pending: Map<number, QuickJSDeferredPromise>;
  readonly settled: QuickJSDeferredPromise[];
  calls: number;
  nextCallId: number;
  wake: (() => void) | undefined;
}

/**
 * A fresh runtime and context with the prelude evaluated, made before a run arrives (while the
 * worker is idle), so a run only compiles and calls the formula. It holds nothing of any
 * invocation: the prelude is the vault's own code, and the context is used by exactly one run and
 * then disposed.
 */
interface Prepared {
  readonly memoryBytes: number;
  readonly runtime: QuickJSRuntime;
  readonly ctx: QuickJSContext;
  /** The prelude's runner: `run(factory, argsJson, configurationJson, hasSvc, checkOnly)`. */
  runFn: QuickJSHandle;
  readonly handles: QuickJSHandle[];
  /** Set when a run takes the context; the host functions refuse to work before. */
  state: RunState | undefined;
  /** The interrupt handler's deadline (ms since the epoch). */
  deadline: number;
}

/** Budget of evaluating the prelude in a context prepared ahead of time (our own code). */
const PREPARE_DEADLINE_MS = 5000;

export class QuickJsEngine {
  private module: { readonly memoryBytes: number; readonly module: Promise<QuickJSWASMModule> } | undefined;
  private prepared: Prepared | undefined;
  private running = false;
  /** The context of the last run, disposed after its result was sent. */
  private spent: Prepared | undefined;
  private readonly active = new Map<number, (reply: ReplyMessage) => void>();

  /** `quickJs`: QuickJS compiled by the host (quickjs-wasm.ts); without it, compiled from the package. */
  constructor(
    private readonly post: (message: CallMessage) => void,
    private readonly quickJs?: WebAssembly.Module,
  ) {}

  /** Routes a host reply to its run; replies for finished runs are dropped. */
  reply(message: ReplyMessage): void {
    this.active.get(message.runId)?.(message);
  }

  private moduleFor(memoryBytes: number): Promise<QuickJSWASMModule> {
    if (this.module?.memoryBytes === memoryBytes) return this.module.module;
    this.discardPrepared();
    const pages = memoryBytes / PAGE;
    const wasmMemory = new WasmMemory({ initial: pages, maximum: pages });
    // Shared by whoever asks while it loads (the idle preparation and a run arriving meanwhile).
    const wasmModule = this.quickJs;
    const module = newQuickJSWASMModuleFromVariant(
      newVariant(RELEASE_SYNC, wasmModule === undefined ? { wasmMemory } : { wasmMemory, wasmModule }),
    );
    this.module = { memoryBytes, module };
    module.catch(() => {
      if (this.module?.module === module) this.module = undefined;
    });
    return module;
  }

  /**
   * Makes the context the next run with `memoryBytes` will take. Called while idle (after a run
   * was reported, and when the worker starts), never during a run: a run has the module's fixed
   * memory to itself. A failure only means the next run makes its own context.
   */
  async prepareNext(memoryBytes: number): Promise<void> {
    // A run in progress owns the module (and may hold different limits): never swap it under it.
    if (this.running) return;
    try {
      this.disposeSpent();
      const loading = this.moduleFor(memoryBytes);
      const module = await loading;
      // A run may have started, or dropped the module, while it loaded.
      if (this.running || this.module?.module !== loading || this.prepared?.memoryBytes === memoryBytes)
        return;
      this.discardPrepared();
      this.prepared = this.prepare(module, memoryBytes);
    } catch {
      this.discardPrepared();
      this.module = undefined;
    }
  }

  async run(message: RunMessage): Promise<RunResult> {
    const { memoryBytes } = message.limits;
    this.running = true;
    try {
      this.disposeSpent();
      const module = await this.moduleFor(memoryBytes);
      const prepared = this.takePrepared(memoryBytes) ?? this.prepare(module, memoryBytes);
      try {
        return await this.execute(prepared, message);
      } finally {
        // Disposed once the result is on its way (prepareNext), or before the next run at the latest.
        this.spent = prepared;
        this.active.delete(message.runId);
      }
    } catch {
      // A trap: this module's memory can no longer be trusted; nothing of it is disposed or reused.
      this.spent = undefined;
      this.prepared = undefined;
      this.module = undefined;
      return { kind: 'crashed' };
    } finally {
      this.running = false;
    }
  }

  private takePrepared(memoryBytes: number): Prepared | undefined {
    const prepared = this.prepared;
    this.prepared = undefined;
    if (prepared === undefined || prepared.memoryBytes === memoryBytes) return prepared;
    this.dispose(prepared);
    return undefined;
  }

  /** Disposes the context of the last run; a failure drops the module (its memory is suspect). */
  private disposeSpent(): void {
    const spent = this.spent;
    this.spent = undefined;
    if (spent === undefined) return;
    try {
      this.dispose(spent);
    } catch {
      this.discardPrepared();
      this.module = undefined;
    }
  }

  private discardPrepared(): void {
    const prepared = this.prepared;
    this.prepared = undefined;
    if (prepared === undefined) return;
    try {
      this.dispose(prepared);
    } catch {
      // Its module is being dropped anyway.
    }
  }

  private dispose(prepared: Prepared): void {
    const state = prepared.state;
    if (state !== undefined) {
      this.active.delete(state.message.runId);
      for (const deferred of [...state.pending.values(), ...state.settled]) deferred.dispose();
    }
    for (const handle of prepared.handles) if (handle.alive) handle.dispose();
    prepared.ctx.dispose();
    prepared.runtime.dispose();
  }

  /** A fresh runtime and context with the host functions defined and the prelude evaluated. */
  private prepare(module: QuickJSWASMModule, memoryBytes: number): Prepared {
    const runtime = module.newRuntime();
    runtime.setMemoryLimit(memoryBytes - SANDBOX_MEMORY_HEADROOM_BYTES);
    runtime.setMaxStackSize(SANDBOX_STACK_BYTES);
    const ctx = runtime.newContext();
    const handles: QuickJSHandle[] = [];
    const keep = (handle: QuickJSHandle): QuickJSHandle => {
      handles.push(handle);
      return handle;
    };
    const prepared: Prepared = {
      memoryBytes,
      runtime,
      ctx,
      runFn: ctx.undefined,
      handles,
      state: undefined,
      deadline: Date.now() + PREPARE_DEADLINE_MS,
    };
    runtime.setInterruptHandler(() => Date.now() > prepared.deadline);
    const running = (): RunState => {
      if (prepared.state === undefined) throw new Error('No run is active');
      return prepared.state;
    };

    const host = keep(ctx.newObject());
    const define = (name: string, fn: (...args: QuickJSHandle[]) => QuickJSHandle | undefined): void => {
      ctx.newFunction(name, fn).consume((h) => ctx.setProp(host, name, h));
    };
    define('call', (targetHandle, argsHandle) => {
      const state = running();
      const { limits, runId } = state.message;
      const target = targetHandle === undefined ? '' : ctx.getString(targetHandle);
      const argsJson = argsHandle === undefined ? '[]' : ctx.getString(argsHandle);
      const deferred = ctx.newPromise();
      if (!isTarget(target)) {
        state.settled.push(deferred);
        rejectWith(ctx, deferred, { name: 'Error', message: 'Unknown host call' });
      } else if (state.calls >= limits.hostCalls || state.pending.size >= limits.concurrentHostCalls) {
        state.settled.push(deferred);
        rejectWith(ctx, deferred, {
          name: 'RangeError',
          message: `At most ${limits.hostCalls} host calls per invocation, ${limits.concurrentHostCalls} at a time`,
        });
      } else {
        state.calls += 1;
        const callId = state.nextCallId;
        state.nextCallId += 1;
        state.pending.set(callId, deferred);
        this.post({ type: 'call', runId, callId, target, argsJson });
      }
      return deferred.handle;
    });
    define('randomHex', (sizeHandle) => {
      const size = sizeHandle === undefined ? NaN : ctx.getNumber(sizeHandle);
      if (!Number.isInteger(size) || size < 0 || size > MAX_RANDOM_BYTES) {
        throw new RangeError(`randomBytes size must be an integer from 0 to ${MAX_RANDOM_BYTES}`);
      }
      return ctx.newString(randomBytes(size).toString('hex'));
    });
    const digestArgs = (args: QuickJSHandle[]): string[] => args.map((h) => ctx.getString(h));
    define('digest', (...args) => {
      const [algorithm = '', data = '', encoding = ''] = digestArgs(args);
      checkDigest(algorithm, encoding);
      return ctx.newString(
        createHash(algorithm)
          .update(data, 'utf8')
          .digest(encoding as 'hex'),
      );
    });
    define('hmac', (...args) => {
      const [algorithm = '', key = '', data = '', encoding = ''] = digestArgs(args);
      checkDigest(algorithm, encoding);
      return ctx.newString(
        createHmac(algorithm, key)
          .update(data, 'utf8')
          .digest(encoding as 'hex'),
      );
    });
    define('uuid', () => ctx.newString(randomUUID()));
    define('load', (nameHandle) => {
      const name = nameHandle === undefined ? '' : ctx.getString(nameHandle);
      if (!isPreludeModule(name)) throw new Error('Unknown prelude module');
      return ctx.unwrapResult(ctx.evalCode(PRELUDE_MODULES[name], `${name}.js`));
    });

    try {
      const prelude = keep(ctx.unwrapResult(ctx.evalCode(PRELUDE, 'prelude.js')));
      prepared.runFn = keep(ctx.unwrapResult(ctx.callFunction(prelude, ctx.undefined, host)));
      return prepared;
    } catch (error) {
      this.dispose(prepared);
      throw error;
    }
  }

  private async execute(prepared: Prepared, message: RunMessage): Promise<RunResult> {
    const { limits } = message;
    const { ctx, runtime, handles } = prepared;
    const deadline = Date.now() + limits.timeoutMs;
    prepared.deadline = deadline;
    runtime.setMemoryLimit(limits.memoryBytes - SANDBOX_MEMORY_HEADROOM_BYTES);
    const state: RunState = {
      message,
      pending: new Map(),
      settled: [],
      calls: 0,
      nextCallId: 1,
      wake: undefined,
    };
    prepared.state = state;
    const keep = (handle: QuickJSHandle): QuickJSHandle => {
      handles.push(handle);
      return handle;
    };

    this.active.set(message.runId, (reply) => {
      const deferred = state.pending.get(reply.callId);
      if (deferred === undefined) return;
      state.pending.delete(reply.callId);
      state.settled.push(deferred);
      if (reply.ok) ctx.newString(reply.json).consume((h) => deferred.resolve(h));
      else rejectWith(ctx, deferred, reply.error);
      state.wake?.();
    });

    const compiled = ctx.evalCode(CODE_PREFIX + message.code + CODE_SUFFIX, 'formula.js');
    if (compiled.error !== undefined) {
      const error = compiled.error;
      try {
        if (Date.now() > deadline) return { kind: 'timeout' };
        return compileError(ctx, error, message.code);
      } finally {
        error.dispose();
      }
    }
    const factory = keep(compiled.value);
    const argsJson = keep(ctx.newString(message.argsJson));
    const configurationJson = keep(ctx.newString(message.configurationJson));
    const called = ctx.callFunction(
      prepared.runFn,
      ctx.undefined,
      factory,
      argsJson,
      configurationJson,
      message.hasSvc ? ctx.true : ctx.false,
      message.checkOnly ? ctx.true : ctx.false,
    );
    if (called.error !== undefined) {
      called.error.dispose();
      return Date.now() > deadline ? { kind: 'timeout' } : { kind: 'out-of-memory' };
    }
    const promise = keep(called.value);

    for (;;) {
      const jobs = runtime.executePendingJobs();
      if (jobs.error !== undefined) jobs.error.dispose();
      if (Date.now() > deadline) return { kind: 'timeout' };
      const promiseState = ctx.getPromiseState(promise);
      if (promiseState.type === 'fulfilled') {
        const value = promiseState.value;
        try {
          if (ctx.typeof(value) !== 'string') return { kind: 'crashed' };
          const report = ctx.getString(value);
          // The report wraps the output: one bound on the whole text.
          if (report.length > limits.outputBytes) return { kind: 'output-too-large' };
          return { kind: 'report', report };
        } finally {
          value.dispose();
        }
      }
      if (promiseState.type === 'rejected') {
        // The runner catches everything catchable: what remains is an engine-level failure.
        promiseState.error.dispose();
        return Date.now() > deadline ? { kind: 'timeout' } : { kind: 'out-of-memory' };
      }
      if (state.pending.size === 0) return { kind: 'never-settled' };
      const remaining = deadline - Date.now();
      const timedOut = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(true), Math.max(0, remaining));
        state.wake = () => {
          clearTimeout(timer);
          resolve(false);
        };
      });
      state.wake = undefined;
      if (timedOut) return { kind: 'timeout' };
    }
  }
}

function rejectWith(ctx: QuickJSContext, deferred: QuickJSDeferredPromise, error: HostCallError): void {
  const handle = ctx.newObject();
  ctx.newString(error.name).consume((h) => ctx.setProp(handle, 'name', h));
  ctx.newString(error.message).consume((h) => ctx.setProp(handle, 'message', h));
  if (error.status !== undefined)
    ctx.newNumber(error.status).consume((h) => ctx.setProp(handle, 'status', h));
  if (error.code !== undefined) ctx.newString(error.code).consume((h) => ctx.setProp(handle, 'code', h));
  if (error.errors !== undefined) {
    const parsed = ctx.evalCode(`(${JSON.stringify(error.errors)})`);
    if (parsed.error === undefined) parsed.value.consume((h) => ctx.setProp(handle, 'errors', h));
    else parsed.error.dispose();
  }
  deferred.reject(handle);
  handle.dispose();
}

function checkDigest(algorithm: string, encoding: string): void {
  if (!HASHES.has(algorithm)) throw new Error(`Digest algorithm must be one of ${[...HASHES].join(', ')}`);
  if (!ENCODINGS.has(encoding))
    throw new Error(`Digest encoding must be one of ${[...ENCODINGS].join(', ')}`);
}

function compileError(ctx: QuickJSContext, error: QuickJSHandle, code: string): RunResult {
  const read = (name: string): unknown => ctx.getProp(error, name).consume((h) => ctx.dump(h));
  const name = read('name');
  const message = read('message');
  if (name === 'InternalError' && message === 'out of memory') return { kind: 'out-of-memory' };
  const wrapped = wrappedPosition(read('lineNumber'), read('columnNumber'), read('stack'));
  return {
    kind: 'compile-error',
    message: `${typeof name === 'string' ? name : 'SyntaxError'}: ${typeof message === 'string' ? message : 'invalid code'}`,
    ...positionInCode(code, wrapped.line, wrapped.column),
  };
}
