import type { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isVaultError } from '../../core/errors/catalogue.ts';
import { confirmDestructive, destructiveAction } from './confirmation.ts';
import { buildProgram } from '../main.ts';
import { everyCommand } from '../test-support/command-tree.ts';
import { makeTempHome, makeTestIo, runSvc, type TempHome } from '../test-support/harness.ts';

const DELETE_IT = { action: 'deleting it', question: 'Delete it?', unchanged: 'it was left as it is' };

describe('confirmDestructive', () => {
  it('asks nothing under --yes, on a terminal or not', async () => {
    for (const isTTY of [true, false]) {
      const io = makeTestIo({ isTTY });
      await confirmDestructive(io.deps, true, DELETE_IT);
      expect(io.asked).toEqual([]);
    }
  });

  it('refuses a script without --yes with a usage error naming the action', async () => {
    const refused = confirmDestructive(makeTestIo({ isTTY: false }).deps, false, DELETE_IT);
    await expect(refused).rejects.toThrow('deleting it needs confirmation; pass --yes');
    await refused.catch((error: unknown) => expect(isVaultError(error, 'USAGE')).toBe(true));
  });

  it('goes on after a yes on a terminal', async () => {
    const io = makeTestIo({ isTTY: true, answers: [true] });
    await confirmDestructive(io.deps, false, DELETE_IT);
    expect(io.asked).toEqual(['Delete it?']);
  });

  it('cancels after a no, saying nothing changed', async () => {
    const io = makeTestIo({ isTTY: true, answers: [false] });
    const refused = confirmDestructive(io.deps, false, DELETE_IT);
    await expect(refused).rejects.toThrow('cancelled; it was left as it is');
    await refused.catch((error: unknown) => expect(isVaultError(error, 'CANCELLED')).toBe(true));
  });
});

/** The words that run `command` with a placeholder for each required argument and option. */
function invocation(words: readonly string[], command: Command): string[] {
  const args = command.registeredArguments.filter((arg) => arg.required).map(() => 'x');
  const options = command.options.filter((option) => option.mandatory).flatMap((o) => [o.long ?? '', '1']);
  return [...words, ...args, ...options];
}

describe('destructive verbs', () => {
  let home: TempHome;
  beforeEach(async () => {
    home = await makeTempHome();
  });
  afterEach(async () => {
    await home.cleanup();
  });

  it('are the verbs that lose data or a credential, each with --yes', async () => {
    const program = await buildProgram(makeTestIo().deps);
    const destructive = everyCommand(program).filter(
      ({ command }) => destructiveAction(command) !== undefined,
    );
    expect(destructive.map(({ words }) => words.join(' ')).sort()).toEqual([
      'app delete',
      'app regenerate',
      'formula delete',
      'invitation delete',
      'logs prune',
      'member remove',
      'proxy delete',
      'reactor delete',
      'token delete',
      'vault import',
      'vault restore',
    ]);
    for (const { command } of destructive) expect(command.options.map((o) => o.long)).toContain('--yes');
  });

  it('refuse to run without --yes off a terminal, before they look for a vault', async () => {
    const program = await buildProgram(makeTestIo().deps);
    const always = everyCommand(program).filter(
      ({ command }) => destructiveAction(command)?.when === 'always',
    );
    expect(always.length).toBeGreaterThan(5);
    for (const { words, command } of always) {
      // The home has no vault: a command that went looking for one would say so instead.
      const result = await runSvc(invocation(words, command), { env: home.env() });
      expect({ words, code: result.code, stderr: result.stderr, stdout: result.stdout }).toEqual({
        words,
        code: 2,
        stderr: `svc: ${destructiveAction(command)?.action} needs confirmation; pass --yes\n`,
        stdout: '',
      });
    }
  });
});
