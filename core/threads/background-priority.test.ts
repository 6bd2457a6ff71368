import { describe, expect, it } from 'vitest';
import {
  BACKGROUND_THREAD_NICE,
  lowerThisThreadPriority,
  startAtBackgroundPriority,
  thisThreadNice,
} from './background-priority.ts';
import { startTypeScriptWorker } from './start-worker.ts';
import type { Worker } from 'node:worker_threads';

interface Report {
  readonly before: number | null;
  readonly lowered: boolean;
  readonly nice: number | null;
}

/** What a worker thread saw of its own priority before and after lowering it. */
function workerReport(start: (run: () => Worker) => Worker = (run) => run()): Promise<Report> {
  const worker = start(() =>
    startTypeScriptWorker(import.meta.url, new URL('./test-support/report-priority.ts', import.meta.url)),
  );
  return new Promise((resolve, reject) => {
    worker.once('message', (report: Report) => {
      void worker.terminate();
      resolve(report);
    });
    worker.once('error', reject);
  });
}

describe('lowerThisThreadPriority', () => {
  it('never renices the process from its main thread', () => {
    const before = thisThreadNice();
    expect(lowerThisThreadPriority()).toBe(false);
    expect(thisThreadNice()).toBe(before);
  });

  it.runIf(process.platform === 'linux')(
    'lowers a worker thread alone, and leaves the main thread as it was',
    async () => {
      const main = thisThreadNice();
      expect(main).not.toBeNull();
      const report = await workerReport();
      expect(report.before).toBe(main);
      expect(report.lowered).toBe(main! < BACKGROUND_THREAD_NICE);
      expect(report.nice).toBe(Math.max(main!, BACKGROUND_THREAD_NICE));
      expect(thisThreadNice()).toBe(main);
    },
  );
});

describe('startAtBackgroundPriority', () => {
  it.runIf(process.platform === 'linux')(
    'lowers the thread it starts before its entry runs, and leaves the main thread as it was',
    async () => {
      const main = thisThreadNice();
      expect(main).not.toBeNull();
      const report = await workerReport(startAtBackgroundPriority);
      expect(report.before).toBe(Math.max(main!, BACKGROUND_THREAD_NICE));
      expect(report.nice).toBe(Math.max(main!, BACKGROUND_THREAD_NICE));
      expect(thisThreadNice()).toBe(main);
    },
  );
});
