/** Messages between the host (sandbox.ts) and a sandbox worker (worker.ts). Plain, structured-cloneable data. */
import type { SandboxLimits } from './limits.ts';
import type { SvcMethod } from './prelude.ts';

export type HostTarget = `svc.${SvcMethod}` | 'fetch';

/** What a worker is started with: the memory of the context it prepares before its first run. */
export interface WorkerData {
  readonly memoryBytes: number;
  /** The process's compiled QuickJS (quickjs-wasm.ts); absent: the worker compiles its own. */
  readonly quickJs?: WebAssembly.Module;
}

export interface RunMessage {
  readonly type: 'run';
  readonly runId: number;
  readonly code: string;
  readonly argsJson: string;
  readonly configurationJson: string;
  readonly hasSvc: boolean;
  /** Only compile and evaluate the module body; do not call the export. */
  readonly checkOnly: boolean;
  readonly limits: SandboxLimits;
}

/** What a failed host call tells the code: safe texts only (catalogue details, never token data). */
export interface HostCallError {
  readonly name: string;
  readonly message: string;
  readonly status?: number;
  readonly code?: string;
  readonly errors?: Record<string, string[]>;
}

export type ReplyMessage =
  | {
      readonly type: 'reply';
      readonly runId: number;
      readonly callId: number;
      readonly ok: true;
      readonly json: string;
    }
  | {
      readonly type: 'reply';
      readonly runId: number;
      readonly callId: number;
      readonly ok: false;
      readonly error: HostCallError;
    };

export type HostToWorker = RunMessage | ReplyMessage;

export interface CallMessage {
  readonly type: 'call';
  readonly runId: number;
  readonly callId: number;
  readonly target: HostTarget;
  readonly argsJson: string;
}

/** How one run ended, as the worker saw it. `report` is the prelude's JSON text (untrusted). */
export type RunResult =
  | { readonly kind: 'report'; readonly report: string }
  | {
      readonly kind: 'compile-error';
      readonly message: string;
      readonly line: number;
      readonly column: number;
    }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'out-of-memory' }
  | { readonly kind: 'output-too-large' }
  | { readonly kind: 'never-settled' }
  | { readonly kind: 'crashed' };

export interface DoneMessage {
  readonly type: 'done';
  readonly runId: number;
  readonly result: RunResult;
}

export type WorkerToHost = CallMessage | DoneMessage;
