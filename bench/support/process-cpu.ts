import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time (user + system, every thread) a process has used so far, in milliseconds, read from
 * /proc; null where /proc is missing. On a shared machine wall-clock figures swing with the other
 * load, while the server's CPU per request barely does, so the benchmarks print both.
 */
export function processCpuMs(pid: number | undefined): number | null {
  return pid === undefined ? null : cpuMsOf(`/proc/${pid}/stat`);
}

/** CPU time of this process's main thread alone (its event loop), in ms; null where /proc is missing. */
export function mainThreadCpuMs(): number | null {
  return cpuMsOf(`/proc/self/task/${process.pid}/stat`);
}

/**
 * This process's main thread from `/proc/self/task/<pid>/schedstat` (Linux): nanosecond totals of
 * time spent running and time spent runnable but waiting for a core, in ms; null where missing.
 */
export function mainThreadSchedMs(): { readonly runMs: number; readonly waitMs: number } | null {
  try {
    const [run, wait] = readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8')
      .split(' ')
      .map(Number);
    return Number.isFinite(run) && Number.isFinite(wait) ? { runMs: run! / 1e6, waitMs: wait! / 1e6 } : null;
  } catch {
    return null;
  }
}

/** One reading of this process's threads: each thread's id, name and CPU time so far (ms). */
export type ThreadReading = ReadonlyMap<string, { readonly name: string; readonly ms: number }>;

/** This process's threads now, from /proc/self/task (Linux); empty where /proc is missing. */
export function readThreads(): ThreadReading {
  const threads = new Map<string, { name: string; ms: number }>();
  let ids: string[];
  try {
    ids = readdirSync('/proc/self/task');
  } catch {
    return threads;
  }
  for (const id of ids) {
    const ms = cpuMsOf(`/proc/self/task/${id}/stat`);
    if (ms === null) continue; // the thread ended between the listing and the reading
    let name: string;
    try {
      name = readFileSync(`/proc/self/task/${id}/comm`, 'utf8').trim();
    } catch {
      continue;
    }
    threads.set(id, { name: id === String(process.pid) ? MAIN_THREAD : name, ms });
  }
  return threads;
}

/** The name the event loop's thread is reported under, whatever the runtime calls it. */
export const MAIN_THREAD = 'main';

/**
 * CPU ms each kind of thread used between two readings, summed by name: `main` (the event loop),
 * `V8Worker` (the collector's and compiler's helpers), `libuv-worker` (the I/O pool: file writes
 * and syncs, the pool's crypto and compression), worker threads by the name they were given. A
 * thread that ended before the second reading is missing: its time is in the process's total only.
 */
export function threadCpuBetween(before: ThreadReading, after: ThreadReading): Record<string, number> {
  const byName: Record<string, number> = {};
  for (const [id, now] of after) {
    const spent = now.ms - (before.get(id)?.ms ?? 0);
    if (spent > 0) byName[now.name] = (byName[now.name] ?? 0) + spent;
  }
  return byName;
}

function cpuMsOf(statPath: string): number | null {
  try {
    const stat = readFileSync(statPath, 'utf8');
    // Fields after the command name, which sits in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
    return Number.isFinite(ticks) ? ticks * (1000 / CLOCK_TICKS_PER_SECOND) : null;
  } catch {
    return null;
  }
}

/** USER_HZ: 100 on every Linux architecture Node supports. */
const CLOCK_TICKS_PER_SECOND = 100;

/**
 * The server's CPU (all its threads: event loop, sandbox workers, fsyncs) per request between two
 * readings, in ms rounded to 0.01, as a field of a bench line; no field when unknown.
 */
export function cpuMsPerRequest(
  before: number | null,
  after: number | null,
  requests: number,
): { server_cpu_ms_per_request?: number } {
  if (before === null || after === null || requests <= 0) return {};
  return { server_cpu_ms_per_request: Math.round(((after - before) / requests) * 100) / 100 };
}
