import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { printsData } from './command-kit.ts';
import { buildProgram } from '../main.ts';
import { everyCommand } from '../test-support/command-tree.ts';
import { makeTestIo } from '../test-support/harness.ts';

describe('--json and --jq', () => {
  it('are on every command that runs and prints data, and on nothing else', async () => {
    const program = await buildProgram(makeTestIo().deps);
    const commands = everyCommand(program);
    const flagsOf = (command: Command) => command.options.map((option) => option.long);
    const withoutJson = commands
      .filter(({ command }) => printsData(command))
      .filter(({ command }) => !flagsOf(command).includes('--json') || !flagsOf(command).includes('--jq'))
      .map(({ path }) => path);
    expect(withoutJson).toEqual([]);
    // Groups (`svc tenant`) and the completion script print no data.
    const others = commands.filter(({ command }) => !printsData(command));
    expect(others.map(({ path }) => path)).toEqual(
      expect.arrayContaining(['', 'tenant', 'app', 'token', 'completion']),
    );
    for (const { command } of others) expect(flagsOf(command)).not.toContain('--jq');
    // Sanity: the walk saw the whole tree (data commands by the dozen).
    expect(commands.filter(({ command }) => printsData(command)).length).toBeGreaterThan(50);
  });
});
