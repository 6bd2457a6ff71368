import { describe, expect, it } from 'vitest';
import { DEFAULT_MIX, READS_ONLY_MIX } from './soak-mix.ts';
import { soakOptionsFrom } from './soak-options.ts';

describe('soakOptionsFrom', () => {
  it('runs two minutes of the default mix at 50 connections, a line every 10 s after 20 s of warm-up', () => {
    expect(soakOptionsFrom(['--only', 'soak'], false)).toEqual({
      seconds: 120,
      intervalSeconds: 10,
      warmupSeconds: 20,
      connections: 50,
      mix: DEFAULT_MIX,
    });
  });

  it('is brief in the quick run, unless minutes are given', () => {
    expect(soakOptionsFrom(['--quick'], true)).toMatchObject({
      seconds: 10,
      intervalSeconds: 2,
      warmupSeconds: 4,
    });
    expect(soakOptionsFrom(['--quick', '--minutes', '1'], true)).toMatchObject({ seconds: 60 });
  });

  it('reads minutes, connections and the mix', () => {
    expect(soakOptionsFrom(['--minutes', '0.5', '--connections', '8', '--reads-only'], false)).toEqual({
      seconds: 30,
      intervalSeconds: 5,
      warmupSeconds: 10,
      connections: 8,
      mix: READS_ONLY_MIX,
    });
    expect(soakOptionsFrom(['--mix', 'read=9,proxy=1'], false).mix).toMatchObject({ read: 9, proxy: 1 });
  });

  it.each([
    [['--minutes', '0'], /--minutes/],
    [['--minutes', 'two'], /--minutes/],
    [['--minutes'], /takes a value/],
    [['--minutes', '--reads-only'], /takes a value/],
    [['--connections', '0'], /--connections/],
    [['--connections', '2.5'], /--connections/],
    [['--reads-only', '--mix', 'read=1'], /give one of them/],
    [['--mix', 'write=1'], /unknown kind/],
  ])('refuses %j', (args, message) => {
    expect(() => soakOptionsFrom(args, false)).toThrow(message);
  });
});
