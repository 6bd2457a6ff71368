/**
 * Appends one JSON line per test file to the file named by SVC_SUITE_CPU_OUT: the CPU seconds the
 * worker process spent on the file (user + system, its threads and the children it reaped, from
 * /proc/self/stat) and its wall seconds, from its first hook to its last, and apart the CPU and
 * wall seconds of loading it before its first hook (`importCpuSeconds`, `importWallSeconds`: this
 * setup file runs first, then the test file and what it imports that the worker has not loaded
 * yet). Workers keep their process between files (`isolate: false`) and run one file at a time,
 * so the differences are that file's. Linux only; elsewhere it records nothing.
 */
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';

const out = process.env.SVC_SUITE_CPU_OUT;
/** Clock ticks per second of /proc's times: 100 on every Linux this runs on (USER_HZ). */
const TICKS_PER_SECOND = 100;

function cpuSeconds(): number | undefined {
  let stat: string;
  try {
    stat = readFileSync('/proc/self/stat', 'utf8');
  } catch {
    return undefined;
  }
  // Fields after the command name's closing parenthesis: utime, stime, cutime, cstime are 14–17.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
  return ticks / TICKS_PER_SECOND;
}

/**
 * With SVC_SUITE_PROFILE_DIR set, each file's time in the worker's main thread is also written
 * there as a V8 CPU profile (`<file path>.cpuprofile`); `bench/cpuprofile-summary.ts <dir>`
 * adds them up. A profile covers the file's imports, hooks and tests.
 */
const profileDir = process.env.SVC_SUITE_PROFILE_DIR;
let profiler: Session | undefined;
if (profileDir !== undefined) {
  profiler = new Session();
  profiler.connect();
  await profiler.post('Profiler.enable');
  await profiler.post('Profiler.start');
}
const cpuAtImport = cpuSeconds();
const wallAtImport = performance.now();

/** The backend a file's tests run on: its PostgreSQL rerun is named `x.postgres.test.ts`. */
function backendOf(file: string | undefined): string {
  return file?.endsWith('.postgres.test.ts') === true ? 'postgres' : 'embedded';
}

let cpuAtStart: number | undefined;
let wallAtStart = 0;
let startedAt = 0;

beforeAll(() => {
  cpuAtStart = cpuSeconds();
  wallAtStart = performance.now();
  startedAt = Date.now();
});

afterAll(async () => {
  const cpu = cpuSeconds();
  if (profiler !== undefined && profileDir !== undefined) {
    const { profile } = await profiler.post('Profiler.stop');
    profiler.disconnect();
    profiler = undefined;
    mkdirSync(profileDir, { recursive: true });
    const name = expect.getState().testPath?.replace(/[^\w.-]+/g, '_') ?? 'unknown';
    writeFileSync(join(profileDir, `${name}.cpuprofile`), JSON.stringify(profile));
  }
  if (out === undefined || cpu === undefined || cpuAtStart === undefined) return;
  const line = {
    file: expect.getState().testPath,
    backend: backendOf(expect.getState().testPath),
    cpuSeconds: Math.round((cpu - cpuAtStart) * 100) / 100,
    wallSeconds: Math.round(performance.now() - wallAtStart) / 1000,
    importCpuSeconds: cpuAtImport === undefined ? null : Math.round((cpuAtStart - cpuAtImport) * 100) / 100,
    importWallSeconds: Math.round(wallAtStart - wallAtImport) / 1000,
    // When and in which worker process, for drawing the run's timeline.
    startedAt,
    pid: process.pid,
  };
  appendFileSync(out, `${JSON.stringify(line)}\n`);
});
