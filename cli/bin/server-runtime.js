// The Node runtime a serving process (`svc start`, `svc serve`) runs with. Plain JavaScript, with
// no dependency, so the launcher can apply it before it loads anything.
//
// V8 runs the collector's concurrent and parallel phases on Node's platform worker threads: four,
// whatever the machine. On a machine with few cores those four wake together during a major
// collection and compete with the thread that answers requests and with the local applications
// calling the vault, which share its cores: the answers wait behind them. A serving process
// therefore keeps that pool to half the cores (at least one; Node's four from eight cores up).
// The collector does the same work, on fewer threads at once. A `--v8-pool-size` given by the
// operator (on the command line or in NODE_OPTIONS) is kept as it is.
import os from 'node:os';

/** Node's own platform pool size, used when `--v8-pool-size` is not given. */
export const NODE_V8_POOL_SIZE = 4;

const POOL_FLAG = '--v8-pool-size';

/** The pool size a serving process uses on a machine with `cores` cores. */
export function servingV8PoolSize(cores) {
  return Math.max(1, Math.min(NODE_V8_POOL_SIZE, Math.floor(cores / 2)));
}

/**
 * The Node options to add for serving, or an empty list when the process already runs as it
 * should: the pool size is Node's own, or the operator chose one.
 */
export function servingNodeOptions({ execArgv, nodeOptions, cores }) {
  const chosen = [...execArgv, ...(nodeOptions ?? '').split(/\s+/)].some(
    (arg) => arg === POOL_FLAG || arg.startsWith(`${POOL_FLAG}=`),
  );
  const size = servingV8PoolSize(cores);
  return chosen || size === NODE_V8_POOL_SIZE ? [] : [`${POOL_FLAG}=${size}`];
}

/**
 * Replaces this process (same pid, same standard streams, same arguments and environment) with
 * one started with the serving options, when any are missing. Where the process cannot be
 * replaced (Windows, a Node without `process.execve`) or would lose something by it (an IPC
 * channel to its parent: only the standard streams survive), it goes on with Node's defaults; a
 * parent that wants the serving runtime there passes the options itself (NODE_OPTIONS).
 */
export function reexecForServing() {
  const options = servingNodeOptions({
    execArgv: process.execArgv,
    nodeOptions: process.env.NODE_OPTIONS,
    cores: os.availableParallelism(),
  });
  if (options.length === 0 || typeof process.execve !== 'function') return;
  if (process.channel !== undefined || process.env.NODE_CHANNEL_FD !== undefined) return;
  process.execve(
    process.execPath,
    [process.execPath, ...options, ...process.execArgv, ...process.argv.slice(1)],
    process.env,
  );
}
