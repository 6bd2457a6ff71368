import { describe, expect, it } from 'vitest';
import { FairQueue } from './fair-queue.ts';

const roomy = { runningPerTenant: 100, pendingPerTenant: 100, queued: 100 };

/** Takes runs until none may start; returns their names. */
function takeAll(queue: FairQueue<string>): string[] {
  const taken: string[] = [];
  for (let next = queue.next(); next !== undefined; next = queue.next()) taken.push(next.job);
  return taken;
}

describe('fair queue of sandbox runs', () => {
  it('takes waiting runs round-robin across tenants, whoever queued first', () => {
    const queue = new FairQueue<string>(roomy);
    for (const job of ['a1', 'a2', 'a3', 'a4']) queue.admit('A', job);
    queue.admit('B', 'b1');
    queue.admit('C', 'c1');
    queue.admit('B', 'b2');
    expect(takeAll(queue)).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'a4']);
  });

  it('never gives one tenant more than its running cap, and lets others past it', () => {
    const queue = new FairQueue<string>({ ...roomy, runningPerTenant: 2 });
    for (const job of ['a1', 'a2', 'a3', 'a4']) queue.admit('A', job);
    expect(takeAll(queue)).toEqual(['a1', 'a2']);
    expect(queue.hasRunnable()).toBe(false);
    // Tenant B is not held up by A's waiting runs.
    queue.admit('B', 'b1');
    expect(queue.hasRunnable()).toBe(true);
    expect(takeAll(queue)).toEqual(['b1']);
    // When one of A's runs ends, the next of A's may start.
    queue.done('A');
    expect(takeAll(queue)).toEqual(['a3']);
  });

  it("refuses a tenant's run beyond its running-and-waiting cap, and keeps nothing of it", () => {
    const queue = new FairQueue<string>({ ...roomy, runningPerTenant: 1, pendingPerTenant: 3 });
    expect(['a1', 'a2', 'a3'].map((job) => queue.admit('A', job))).toEqual([null, null, null]);
    expect(queue.admit('A', 'a4')).toBe('tenant');
    expect(queue.admit('B', 'b1')).toBeNull();
    expect(takeAll(queue)).toEqual(['a1', 'b1']);
    // a1 is running and a2, a3 wait: still full until a run ends.
    expect(queue.admit('A', 'a5')).toBe('tenant');
    queue.done('A');
    expect(queue.admit('A', 'a6')).toBeNull();
    expect(queue.size).toBe(3);
  });

  it('refuses every tenant when the whole queue is full', () => {
    const queue = new FairQueue<string>({ ...roomy, queued: 2 });
    queue.admit('A', 'a1');
    queue.admit('B', 'b1');
    expect(queue.admit('C', 'c1')).toBe('queue');
    queue.next();
    expect(queue.admit('C', 'c1')).toBeNull();
  });

  it('hands back every waiting run when drained', () => {
    const queue = new FairQueue<string>({ ...roomy, runningPerTenant: 1 });
    queue.admit('A', 'a1');
    queue.admit('A', 'a2');
    queue.admit('B', 'b1');
    queue.next();
    expect(queue.drain().sort()).toEqual(['a2', 'b1']);
    expect(queue.size).toBe(0);
    expect(queue.next()).toBeUndefined();
  });

  it('refuses limits below one', () => {
    expect(() => new FairQueue<string>({ ...roomy, runningPerTenant: 0 })).toThrow(RangeError);
  });
});
