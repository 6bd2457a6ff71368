import { Help } from 'commander';
import { describe, expect, it } from 'vitest';
import { VERBS, verbsNeeded } from './command-index.ts';
import { makeTestIo } from '../test-support/harness.ts';

describe('the verb index', () => {
  it('shows each verb in the root help exactly as its command describes itself', async () => {
    const { deps } = makeTestIo();
    const help = new Help();
    for (const verb of VERBS) {
      const command = (await verb.load())(deps);
      expect({
        name: command.name(),
        term: help.subcommandTerm(command),
        description: command.description(),
      }).toEqual({ name: verb.name, term: verb.term, description: verb.description });
    }
  });

  it('builds only the verb being run; everything for completion; nothing for the root help', () => {
    expect(verbsNeeded(['tenant', 'list', '--json'])).toEqual(new Set(['tenant']));
    expect(verbsNeeded(['help', 'token'])).toEqual(new Set(['token']));
    expect(verbsNeeded(['--help'])).toEqual(new Set());
    expect(verbsNeeded([])).toEqual(new Set());
    expect(verbsNeeded(['completion', 'bash'])).toBe('all');
  });
});
