import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * The nice value of a background thread (snapshot builds): the scheduler then gives the vault's
 * own thread, which answers requests, about ten times its share of a busy core, so a snapshot
 * takes longer under load instead of making requests wait for a core.
 */
export const BACKGROUND_THREAD_NICE = 10;

/** The calling thread's id on Linux (`/proc/thread-self` names it), or null. */
function linuxThreadId(): number | null {
  if (process.platform !== 'linux') return null;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) && tid > 0 ? tid : null;
  } catch {
    return null;
  }
}

/**
 * Lowers the scheduling priority of the calling worker thread to `BACKGROUND_THREAD_NICE`; true
 * when it did. On Linux a thread id given to setpriority(2) names that one thread. Elsewhere, and
 * on the process's main thread, an id would name the whole process, so nothing is changed.
 */
export function lowerThisThreadPriority(): boolean {
  const tid = linuxThreadId();
  if (tid === null || tid === process.pid) return false;
  try {
    setPriority(tid, BACKGROUND_THREAD_NICE);
    return true;
  } catch {
    return false; // a priority already lower, or a platform that refuses: the build runs as it is
  }
}

/** The ids of this process's threads on Linux (`/proc/self/task`), or null. */
function linuxThreadIds(): Set<string> | null {
  if (process.platform !== 'linux') return null;
  try {
    return new Set(readdirSync('/proc/self/task'));
  } catch {
    return null;
  }
}

/**
 * Runs `start`, which creates one thread (a worker thread), and lowers that thread's priority to
 * `BACKGROUND_THREAD_NICE` as it is created, so that its start (the runtime's boot, loading its
 * entry) already yields to the thread that answers requests. The new thread is the one that
 * appeared in this process while `start` ran (a worker thread is created before its constructor
 * returns). When that is not exactly one thread, or not on Linux, nothing is changed here and the
 * thread lowers its own priority once its entry runs (`lowerThisThreadPriority`).
 */
export function startAtBackgroundPriority<T>(start: () => T): T {
  const before = linuxThreadIds();
  const started = start();
  const after = linuxThreadIds();
  if (before === null || after === null) return started;
  const created = [...after].filter((tid) => !before.has(tid));
  if (created.length !== 1) return started;
  try {
    setPriority(Number(created[0]), BACKGROUND_THREAD_NICE);
  } catch {
    // a priority already lower, or a platform that refuses: the thread lowers its own when it runs
  }
  return started;
}

/** The calling thread's nice value from `/proc/thread-self/stat` (Linux), or null. */
export function thisThreadNice(): number | null {
  if (process.platform !== 'linux') return null;
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'utf8');
    // Fields after the parenthesised command name: state is field 3, nice is field 19.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[19 - 3]);
  } catch {
    return null;
  }
}
