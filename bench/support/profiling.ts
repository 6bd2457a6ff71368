/**
 * CPU profiling of a bench server, switched by signals so start-up and warm-up stay out of the
 * profile: the first SIGUSR2 starts the inspector's sampling profiler and notes the process's CPU
 * time, the next one stops it, writes the `.cpuprofile` and prints one JSON line (path and CPU
 * milliseconds spent in between, every thread of the process, and split by kind of thread). Enabled by BENCH_CPU_PROFILE=<path>;
 * BENCH_CPU_PROFILE=none measures the CPU time only, without the sampler (whose own cost is per
 * second, not per request, so it inflates CPU per request when requests are few).
 * BENCH_HEAP_PROFILE=<path> samples allocations over the same window, collected ones included
 * (what a request allocates, not what stays): a `.heapprofile` for `bench/heapprofile-summary.ts`.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { readThreads, threadCpuBetween } from './process-cpu.ts';
import type { ThreadReading } from './process-cpu.ts';

export function enableSignalProfiling(): void {
  const path = process.env.BENCH_CPU_PROFILE;
  const heapPath = process.env.BENCH_HEAP_PROFILE;
  if (!path) return;
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, params ?? {}, (err, result) => (err ? reject(err) : resolve(result))),
    );
  let started: NodeJS.CpuUsage | null = null;
  let threadsAtStart: ThreadReading = new Map();
  process.on('SIGUSR2', () => {
    void (async () => {
      if (!started) {
        if (path !== 'none') {
          await post('Profiler.enable');
          await post('Profiler.setSamplingInterval', { interval: 200 });
          await post('Profiler.start');
        }
        if (heapPath) {
          await post('HeapProfiler.enable');
          await post('HeapProfiler.startSampling', {
            samplingInterval: 16_384,
            includeObjectsCollectedByMajorGC: true,
            includeObjectsCollectedByMinorGC: true,
          });
        }
        started = process.cpuUsage();
        threadsAtStart = readThreads();
        return;
      }
      const cpu = process.cpuUsage(started);
      const threads = threadCpuBetween(threadsAtStart, readThreads());
      started = null;
      if (path !== 'none') {
        const { profile } = (await post('Profiler.stop')) as { profile: unknown };
        writeFileSync(path, JSON.stringify(profile));
      }
      if (heapPath) {
        const { profile } = (await post('HeapProfiler.stopSampling')) as { profile: unknown };
        writeFileSync(heapPath, JSON.stringify(profile));
      }
      process.stdout.write(
        `${JSON.stringify({
          profile: path,
          cpu_user_ms: cpu.user / 1000,
          cpu_system_ms: cpu.system / 1000,
          thread_cpu_ms: threads,
        })}\n`,
      );
    })();
  });
}
