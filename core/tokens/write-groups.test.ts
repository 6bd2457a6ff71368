import { describe, expect, it } from 'vitest';
import { WriteGroups, runAlone } from './write-groups.ts';
import type { GroupOutcome } from './write-groups.ts';
import type { TransactionOptions } from '../vault/storage-contract.ts';

/** A group writer whose writes finish when the test says so. */
function controlledWriter() {
  const groups: string[][] = [];
  const finish: Array<(fail?: boolean) => void> = [];
  /** Each group's journal record became durable (its commit not yet acknowledged). */
  const journaled: Array<() => void> = [];
  const write = (
    members: readonly string[],
    options: TransactionOptions,
  ): Promise<ReadonlyArray<GroupOutcome<string>>> => {
    groups.push([...members]);
    journaled.push(() => options.onJournaled?.());
    return new Promise((resolve, reject) =>
      finish.push((fail) =>
        fail
          ? reject(new Error('failed'))
          : resolve(
              members.map((m) =>
                m.startsWith('alone') ? runAlone() : { kind: 'done', value: m.toUpperCase() },
              ),
            ),
      ),
    );
  };
  return { groups, finish, journaled, write };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('WriteGroups', () => {
  it('writes the first member at once and the ones that queue meanwhile together', async () => {
    const w = controlledWriter();
    const groups = new WriteGroups(w.write, 10);
    const a = groups.submit('a', 1);
    await tick();
    const rest = [groups.submit('b', 1), groups.submit('c', 1), groups.submit('alone-d', 1)];
    await tick();
    expect(w.groups).toEqual([['a']]);
    w.finish[0]!();
    expect(await a).toEqual({ kind: 'done', value: 'A' });
    await tick();
    expect(w.groups).toEqual([['a'], ['b', 'c', 'alone-d']]);
    w.finish[1]!();
    expect(await Promise.all(rest)).toEqual([
      { kind: 'done', value: 'B' },
      { kind: 'done', value: 'C' },
      { kind: 'alone' },
    ]);
  });

  it('keeps a group within its weight, but always takes one member', async () => {
    const w = controlledWriter();
    const groups = new WriteGroups(w.write, 5);
    const all = [
      groups.submit('big', 8),
      groups.submit('x', 3),
      groups.submit('y', 2),
      groups.submit('z', 1),
    ];
    for (let i = 0; i < 3; i++) {
      await tick();
      w.finish[i]!();
    }
    await Promise.all(all);
    expect(w.groups).toEqual([['big'], ['x', 'y'], ['z']]);
  });

  it('sends every member of a failed group to run alone', async () => {
    const w = controlledWriter();
    const groups = new WriteGroups(w.write, 10);
    const first = groups.submit('a', 1);
    await tick();
    const later = [groups.submit('b', 1), groups.submit('c', 1)];
    w.finish[0]!();
    await first;
    await tick();
    w.finish[1]!(true);
    expect(await Promise.all(later)).toEqual([{ kind: 'alone' }, { kind: 'alone' }]);
  });

  it('groups every caller that arrives while a group is written; callers it answers wait for the next', async () => {
    // The rule behind the two alternating groups seen at 50 connections (docs/performance.md,
    // "Grouped writes: how full the groups are"): a group closes when the one before it is durable.
    const w = controlledWriter();
    const groups = new WriteGroups(w.write, 1000);
    const callers = Array.from({ length: 50 }, (_, i) => `m${i}`);
    const first = groups.submit(callers[0]!, 1);
    await tick();
    const rest = callers.slice(1).map((m) => groups.submit(m, 1));
    await tick();
    expect(w.groups).toEqual([['m0']]);
    w.finish[0]!();
    await first;
    // m0 calls again at once, but the 49 that arrived meanwhile were taken when its group finished.
    const again = groups.submit('m0-again', 1);
    await tick();
    expect(w.groups.map((g) => g.length)).toEqual([1, 49]);
    w.finish[1]!();
    await Promise.all(rest);
    const restAgain = callers.slice(1).map((m) => groups.submit(`${m}-again`, 1));
    await tick();
    expect(w.groups.slice(2)).toEqual([['m0-again']]);
    w.finish[2]!();
    await again;
    await tick();
    expect(w.groups.map((g) => g.length)).toEqual([1, 49, 1, 49]);
    w.finish[3]!();
    expect((await Promise.all(restAgain)).every((o) => o.kind === 'done')).toBe(true);
  });

  it('starts the next group once the previous one is journaled, before it is answered', async () => {
    const w = controlledWriter();
    const groups = new WriteGroups(w.write, 10);
    const a = groups.submit('a', 1);
    await tick();
    const b = groups.submit('b', 1);
    await tick();
    expect(w.groups).toEqual([['a']]);
    w.journaled[0]!();
    await tick();
    // B's group runs while A's commit is still being acknowledged; a third waits for B's record.
    expect(w.groups).toEqual([['a'], ['b']]);
    const c = groups.submit('c', 1);
    await tick();
    expect(w.groups).toEqual([['a'], ['b']]);
    w.finish[0]!();
    expect(await a).toEqual({ kind: 'done', value: 'A' });
    await tick();
    expect(w.groups).toEqual([['a'], ['b']]);
    w.finish[1]!();
    expect(await b).toEqual({ kind: 'done', value: 'B' });
    await tick();
    expect(w.groups).toEqual([['a'], ['b'], ['c']]);
    w.finish[2]!();
    expect(await c).toEqual({ kind: 'done', value: 'C' });
  });

  it('a next group smaller than the one journaled waits for that one to be answered', async () => {
    const w = controlledWriter();
    const groups = new WriteGroups(w.write, 10);
    const first = groups.submit('a', 1);
    await tick();
    const pair = [groups.submit('b', 1), groups.submit('c', 1)];
    w.journaled[0]!();
    await tick();
    expect(w.groups).toEqual([['a'], ['b', 'c']]);
    const d = groups.submit('d', 1);
    w.journaled[1]!();
    await tick();
    // One caller waits where the journaled group holds two: it waits for their answer.
    expect(w.groups).toEqual([['a'], ['b', 'c']]);
    w.finish[0]!();
    w.finish[1]!();
    await Promise.all([first, ...pair]);
    await tick();
    expect(w.groups).toEqual([['a'], ['b', 'c'], ['d']]);
    w.finish[2]!();
    expect(await d).toEqual({ kind: 'done', value: 'D' });
  });
});
