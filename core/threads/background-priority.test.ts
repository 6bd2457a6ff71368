import { describe, expect, it } from 'vitest';
import { BACKGROUND_THREAD_NICE, lowerThisThreadPriority, thisThreadNice } from './background-priority.ts';
import { startTypeScriptWorker } from './start-worker.ts';

interface Report {
  readonly before: number | null;
  readonly lowered: boolean;
  readonly nice: number | null;
}

/** What a worker thread saw of its own priority before and after lowering it. */
function workerReport(): Promise<Report> {
  const worker = startTypeScriptWorker(
    import.meta.url,
    new URL('./test-support/report-priority.ts', import.meta.url),
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
