/**
 * Runs formula code in QuickJS (quickjs-emscripten, release build). Used inside a sandbox worker
 * thread: it blocks while QuickJS runs, so it must never run on the server's event loop.
 *
 * - One WebAssembly module per worker, with a FIXED memory of `limits.memoryBytes` (initial =
 *   maximum): no allocation can grow it, whatever QuickJS's own accounting says. QuickJS's limit is
 *   set a little lower so that most memory bombs end as a catchable "out of memory" first.
 * - A fresh runtime and context per run, disposed afterwards: nothing survives between invocations.
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
  QuickJSWASMModule,
} from 'quickjs-emscripten';
import { SANDBOX_MEMORY_HEADROOM_BYTES, SANDBOX_STACK_BYTES } from './limits.ts';
import { CODE_LINE_OFFSET, CODE_PREFIX, CODE_SUFFIX, PRELUDE, SVC_METHODS } from './prelude.ts';
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

interface ActiveRun {
  onReply(reply: ReplyMessage): void;
}

export class QuickJsEngine {
  private module: { readonly memoryBytes: number; readonly module: QuickJSWASMModule } | undefined;
  private readonly active = new Map<number, ActiveRun>();

  constructor(private readonly post: (message: CallMessage) => void) {}

  /** Routes a host reply to its run; replies for finished runs are dropped. */
  reply(message: ReplyMessage): void {
    this.active.get(message.runId)?.onReply(message);
  }

  private async moduleFor(memoryBytes: number): Promise<QuickJSWASMModule> {
    if (this.module?.memoryBytes === memoryBytes) return this.module.module;
    const pages = memoryBytes / PAGE;
    const wasmMemory = new WasmMemory({ initial: pages, maximum: pages });
    const module = await newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { wasmMemory }));
    this.module = { memoryBytes, module };
    return module;
  }

  async run(message: RunMessage): Promise<RunResult> {
    try {
      const module = await this.moduleFor(message.limits.memoryBytes);
      return await this.runIn(module, message);
    } catch {
      // A trap or a failed dispose: this module's memory can no longer be trusted.
      this.module = undefined;
      return { kind: 'crashed' };
    }
  }

  private async runIn(module: QuickJSWASMModule, message: RunMessage): Promise<RunResult> {
    const { limits } = message;
    const deadline = Date.now() + limits.timeoutMs;
    const runtime = module.newRuntime();
    runtime.setMemoryLimit(limits.memoryBytes - SANDBOX_MEMORY_HEADROOM_BYTES);
    runtime.setMaxStackSize(SANDBOX_STACK_BYTES);
    runtime.setInterruptHandler(() => Date.now() > deadline);
    const ctx = runtime.newContext();
    const pending = new Map<number, QuickJSDeferredPromise>();
    const settled: QuickJSDeferredPromise[] = [];
    const handles: QuickJSHandle[] = [];
    let calls = 0;
    let nextCallId = 1;
    let wake: (() => void) | undefined;
    const keep = (handle: QuickJSHandle): QuickJSHandle => {
      handles.push(handle);
      return handle;
    };

    const rejectWith = (deferred: QuickJSDeferredPromise, error: HostCallError): void => {
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
    };

    this.active.set(message.runId, {
      onReply: (reply) => {
        const deferred = pending.get(reply.callId);
        if (deferred === undefined) return;
        pending.delete(reply.callId);
        settled.push(deferred);
        if (reply.ok) ctx.newString(reply.json).consume((h) => deferred.resolve(h));
        else rejectWith(deferred, reply.error);
        wake?.();
      },
    });

    try {
      const host = keep(ctx.newObject());
      const define = (name: string, fn: (...args: QuickJSHandle[]) => QuickJSHandle | undefined): void => {
        ctx.newFunction(name, fn).consume((h) => ctx.setProp(host, name, h));
      };
      define('call', (targetHandle, argsHandle) => {
        const target = targetHandle === undefined ? '' : ctx.getString(targetHandle);
        const argsJson = argsHandle === undefined ? '[]' : ctx.getString(argsHandle);
        const deferred = ctx.newPromise();
        if (!isTarget(target)) {
          settled.push(deferred);
          rejectWith(deferred, { name: 'Error', message: 'Unknown host call' });
        } else if (calls >= limits.hostCalls || pending.size >= limits.concurrentHostCalls) {
          settled.push(deferred);
          rejectWith(deferred, {
            name: 'RangeError',
            message: `At most ${limits.hostCalls} host calls per invocation, ${limits.concurrentHostCalls} at a time`,
          });
        } else {
          calls += 1;
          const callId = nextCallId;
          nextCallId += 1;
          pending.set(callId, deferred);
          this.post({ type: 'call', runId: message.runId, callId, target, argsJson });
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
      const digestArgs = (handles: QuickJSHandle[]): string[] => handles.map((h) => ctx.getString(h));
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

      const preludeResult = ctx.evalCode(PRELUDE, 'prelude.js');
      const prelude = keep(ctx.unwrapResult(preludeResult));
      const runFn = keep(ctx.unwrapResult(ctx.callFunction(prelude, ctx.undefined, host)));

      const compiled = ctx.evalCode(CODE_PREFIX + message.code + CODE_SUFFIX, 'formula.js');
      if (compiled.error !== undefined) {
        const error = compiled.error;
        try {
          if (Date.now() > deadline) return { kind: 'timeout' };
          return compileError(ctx, error);
        } finally {
          error.dispose();
        }
      }
      const factory = keep(compiled.value);
      const argsJson = keep(ctx.newString(message.argsJson));
      const configurationJson = keep(ctx.newString(message.configurationJson));
      const called = ctx.callFunction(
        runFn,
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
        const state = ctx.getPromiseState(promise);
        if (state.type === 'fulfilled') {
          const value = state.value;
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
        if (state.type === 'rejected') {
          // The runner catches everything catchable: what remains is an engine-level failure.
          state.error.dispose();
          return Date.now() > deadline ? { kind: 'timeout' } : { kind: 'out-of-memory' };
        }
        if (pending.size === 0) return { kind: 'never-settled' };
        const remaining = deadline - Date.now();
        const timedOut = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(true), Math.max(0, remaining));
          wake = () => {
            clearTimeout(timer);
            resolve(false);
          };
        });
        wake = undefined;
        if (timedOut) return { kind: 'timeout' };
      }
    } finally {
      this.active.delete(message.runId);
      for (const deferred of [...pending.values(), ...settled]) deferred.dispose();
      for (const handle of handles) if (handle.alive) handle.dispose();
      ctx.dispose();
      runtime.dispose();
    }
  }
}

function checkDigest(algorithm: string, encoding: string): void {
  if (!HASHES.has(algorithm)) throw new Error(`Digest algorithm must be one of ${[...HASHES].join(', ')}`);
  if (!ENCODINGS.has(encoding))
    throw new Error(`Digest encoding must be one of ${[...ENCODINGS].join(', ')}`);
}

function compileError(ctx: QuickJSContext, error: QuickJSHandle): RunResult {
  const read = (name: string): unknown => ctx.getProp(error, name).consume((h) => ctx.dump(h));
  const name = read('name');
  const message = read('message');
  if (name === 'InternalError' && message === 'out of memory') return { kind: 'out-of-memory' };
  const line = Number(read('lineNumber'));
  const column = Number(read('columnNumber'));
  return {
    kind: 'compile-error',
    message: `${typeof name === 'string' ? name : 'SyntaxError'}: ${typeof message === 'string' ? message : 'invalid code'}`,
    line: Number.isFinite(line) ? Math.max(1, line - CODE_LINE_OFFSET) : 1,
    column: Number.isFinite(column) ? column : 1,
  };
}
