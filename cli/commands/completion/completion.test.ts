import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { expectOk, expectOneLineError } from '../../test-support/expect.ts';
import { runSvc } from '../../test-support/harness.ts';

const exec = promisify(execFile);

/** Runs bash's completion function on a command line; returns what it offers. */
async function complete(script: string, words: string[]): Promise<string[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'svc-completion-'));
  try {
    const file = path.join(dir, 'svc.bash');
    await writeFile(file, script);
    const line = words.map((w) => `'${w}'`).join(' ');
    const { stdout } = await exec('bash', [
      '-c',
      `source '${file}'; COMP_WORDS=(${line}); COMP_CWORD=${words.length - 1}; _svc; printf '%s\\n' "\${COMPREPLY[@]}"`,
    ]);
    return stdout.split('\n').filter((w) => w !== '');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('svc completion', () => {
  it('bash: loads, and completes commands, subcommands and flags from the real tree', async () => {
    const result = await runSvc(['completion', 'bash']);
    expectOk(result);
    expect(result.stdout).toContain('complete -o default -F _svc svc');
    expect(await complete(result.stdout, ['svc', 'va'])).toEqual(['vault']);
    expect(await complete(result.stdout, ['svc', 'vault', 're'])).toEqual(['restore', 'rekey']);
    expect(await complete(result.stdout, ['svc', 'vault', 'restore', '--repl'])).toEqual(['--replace-vault']);
    // Flag values and arguments are skipped when finding the command.
    expect(await complete(result.stdout, ['svc', 'token', 'get', '--tenant', 'acme', '--rev'])).toEqual([
      '--reveal',
    ]);
  });

  it('zsh and fish scripts name the same commands; another shell is a usage error', async () => {
    const zsh = await runSvc(['completion', 'ZSH']);
    expectOk(zsh);
    expect(zsh.stdout).toContain('bashcompinit');
    const fish = await runSvc(['completion', 'fish']);
    expectOk(fish);
    expect(fish.stdout).toContain(`complete -c svc -n '__fish_use_subcommand' -a 'start serve init`);
    expect(fish.stdout).toContain(
      `complete -c svc -n '__fish_seen_subcommand_from vault; and __fish_seen_subcommand_from restore' -l replace-vault`,
    );
    expectOneLineError(await runSvc(['completion', 'powershell']), 2, /Allowed choices are bash, zsh, fish/);
  });
});
