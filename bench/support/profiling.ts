/**
 * CPU profiling of a bench server, switched by signals so start-up and warm-up stay out of the
 * profile: the first SIGUSR2 starts the inspector's sampling profiler and notes the process's CPU
 * time, the next one stops it, writes the `.cpuprofile` and prints one JSON line (path and CPU
 * milliseconds spent in between, every thread of the process). Enabled by BENCH_CPU_PROFILE=<path>;
 * BENCH_CPU_PROFILE=none measures the CPU time only, without the sampler (whose own cost is per
 * second, not per request, so it inflates CPU per request when requests are few).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

export function enableSignalProfiling(): void {
  const path = process.env.BENCH_CPU_PROFILE;
  if (!path) return;
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, params ?? {}, (err, result) => (err ? reject(err) : resolve(result))),
    );
  let started: NodeJS.CpuUsage | null = null;
  process.on('SIGUSR2', () => {
    void (async () => {
      if (!started) {
        if (path !== 'none') {
          await post('Profiler.enable');
          await post('Profiler.setSamplingInterval', { interval: 200 });
          await post('Profiler.start');
        }
        started = process.cpuUsage();
        return;
      }
      const cpu = process.cpuUsage(started);
      started = null;
      if (path !== 'none') {
        const { profile } = (await post('Profiler.stop')) as { profile: unknown };
        writeFileSync(path, JSON.stringify(profile));
      }
      process.stdout.write(
        `${JSON.stringify({ profile: path, cpu_user_ms: cpu.user / 1000, cpu_system_ms: cpu.system / 1000 })}\n`,
      );
    })();
  });
}
