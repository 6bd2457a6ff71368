import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { MAIN_THREAD, readThreads, threadCpuBetween } from './process-cpu.ts';

/** Keeps this thread busy until the process has used `ms` more CPU time (not a wall-clock wait). */
function spin(ms: number): void {
  const start = process.cpuUsage();
  for (;;) {
    const used = process.cpuUsage(start);
    if ((used.user + used.system) / 1000 >= ms) return;
  }
}

describe.skipIf(process.platform !== 'linux')('thread CPU readings', () => {
  it('puts the event loop’s own work under main', () => {
    const before = readThreads();
    spin(120);
    const spent = threadCpuBetween(before, readThreads());
    // /proc counts in 10 ms ticks; the other threads were idle meanwhile.
    expect(spent[MAIN_THREAD]).toBeGreaterThanOrEqual(90);
  });

  it('counts another thread under its own name, not main’s', async () => {
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads');
       parentPort.once('message', (ms) => {
         const start = process.cpuUsage();
         for (;;) { const u = process.cpuUsage(start); if ((u.user + u.system) / 1000 >= ms) break; }
         parentPort.postMessage('done');
       });`,
      { eval: true, name: 'svc-spinner' },
    );
    try {
      await new Promise((resolve) => worker.once('online', resolve));
      const before = readThreads();
      const done = new Promise((resolve) => worker.once('message', resolve));
      worker.postMessage(120);
      await done;
      const spent = threadCpuBetween(before, readThreads());
      const names = Object.keys(spent);
      // The kernel keeps 15 bytes of a thread's name.
      const spinner = names.find((name) => 'svc-spinner'.startsWith(name) && name !== MAIN_THREAD);
      expect(spinner, JSON.stringify(spent)).toBeDefined();
      expect(spent[spinner!]).toBeGreaterThanOrEqual(90);
      expect(spent[MAIN_THREAD] ?? 0).toBeLessThan(90);
    } finally {
      await worker.terminate();
    }
  });

  it('leaves out threads that used nothing in between', () => {
    const reading = readThreads();
    expect(threadCpuBetween(reading, reading)).toEqual({});
  });
});
