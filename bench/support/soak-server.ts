/**
 * The soak bench's server: `svc start` as a user runs it (`node cli/bin/svc.js start`, the embedded
 * default created on the first run in a temp home), with the rate limit off, warnings only in its
 * log, and proxies allowed to reach the local destination. It is loaded with
 * bench/support/report-memory.mjs, which answers the bench's IPC question for its memory.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { servingNodeOptions } from '../../cli/bin/server-runtime.js';

const SVC_BIN = fileURLToPath(new URL('../../cli/bin/svc.js', import.meta.url));
const REPORT_MEMORY = new URL('./report-memory.mjs', import.meta.url).href;
/** How long a memory question may wait for its answer (the server's loop is busy under load). */
const MEMORY_TIMEOUT_MS = 10_000;

/** What `svc start --json` prints on its first run (the fields the bench uses). */
export interface Started {
  readonly url: string;
  readonly api_key: string;
  readonly tenant_id: string;
}

export interface SvcServer {
  readonly child: ChildProcess;
  readonly started: Started;
  /** The environment the server runs with: a `svc` command run with it reaches the same vault. */
  readonly env: NodeJS.ProcessEnv;
}

/** The `svc` command's environment for the vault in `home` (and its proxy destination's CA). */
export function svcEnv(home: string, caFile: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '',
    HOME: home,
    SVC_HOME: home,
    SVC_RATE_LIMIT: '0',
    SVC_LOG_LEVEL: 'warn',
    SVC_PROXY_ALLOW: 'localhost, 127.0.0.0/8, ::1',
    SVC_PROXY_CA_FILE: caFile,
    // The worker threads' compiled entries (bench/support/compiled-workers.ts), as a built install runs them.
    ...(process.env.SVC_TEST_COMPILED_WORKERS === undefined
      ? {}
      : { SVC_TEST_COMPILED_WORKERS: process.env.SVC_TEST_COMPILED_WORKERS }),
  };
}

export function svcArgs(args: readonly string[]): string[] {
  return [SVC_BIN, ...args];
}

/** Starts `svc start --json --port 0` and resolves with what it printed once it serves. */
export function startSvc(env: NodeJS.ProcessEnv): Promise<SvcServer> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', REPORT_MEMORY, ...svcArgs(['start', '--json', '--port', '0'])],
      {
        // The serving runtime, given here: the launcher does not replace a process with an IPC channel.
        env: {
          ...env,
          NODE_OPTIONS: servingNodeOptions({
            execArgv: [],
            nodeOptions: undefined,
            cores: availableParallelism(),
          }).join(' '),
        },
        stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
      },
    );
    let out = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      out += chunk;
      try {
        resolve({ child, started: JSON.parse(out) as Started, env });
      } catch {
        // The JSON object is not all there yet.
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`svc start exited with ${code}`)));
  });
}

export interface ServerMemory {
  readonly rss: number;
  readonly heapUsed: number;
  readonly external: number;
}

/** The server's process.memoryUsage(), asked over IPC. */
export function memoryOf(child: ChildProcess): Promise<ServerMemory> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.off('message', onMessage);
      reject(new Error('the server did not report its memory'));
    }, MEMORY_TIMEOUT_MS);
    const onMessage = (message: unknown) => {
      const memory = (message as { memory?: ServerMemory } | null)?.memory;
      if (memory === undefined) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(memory);
    };
    child.on('message', onMessage);
    child.send('memory');
  });
}
