import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { expectOk, expectOneLineError } from '../../test-support/expect.ts';
import { runSvc } from '../../test-support/harness.ts';
import { startServer } from '../../test-support/running-server.ts';
import { makeTenantHome } from '../../test-support/tenant-home.ts';

const SVC_BIN = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));

const exec = promisify(execFile);

/** Runs bash's completion function on a command line; returns what it offers. */
async function complete(script: string, words: string[], env?: NodeJS.ProcessEnv): Promise<string[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'svc-completion-'));
  try {
    const file = path.join(dir, 'svc.bash');
    await writeFile(file, script);
    const line = words.map((w) => `'${w}'`).join(' ');
    const { stdout } = await exec(
      'bash',
      [
        '-c',
        `source '${file}'; COMP_WORDS=(${line}); COMP_CWORD=${words.length - 1}; _svc; printf '%s\\n' "\${COMPREPLY[@]}"`,
      ],
      env === undefined ? {} : { env: { ...process.env, ...env } },
    );
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

  it('bash: completes the values of --type, --permission and friends; free text completes files', async () => {
    const { stdout } = await runSvc(['completion', 'bash']);
    expect(await complete(stdout, ['svc', 'app', 'create', '--type', ''])).toEqual([
      'private',
      'public',
      'management',
    ]);
    expect(await complete(stdout, ['svc', 'app', 'create', '--permission', 'token:r'])).toEqual([
      'token:read',
    ]);
    expect(await complete(stdout, ['svc', 'token', 'list', '--type', 'card'])).toEqual([
      'card',
      'card_number',
    ]);
    expect(await complete(stdout, ['svc', 'invitation', 'list', '--status', ''])).toEqual([
      'PENDING',
      'EXPIRED',
    ]);
    // A flag of free text offers nothing, so bash falls back to file names (-o default).
    expect(await complete(stdout, ['svc', 'app', 'create', '--name', ''])).toEqual([]);
  });

  it('zsh and fish scripts name the same commands; another shell is a usage error', async () => {
    const zsh = await runSvc(['completion', 'ZSH']);
    expectOk(zsh);
    expect(zsh.stdout).toContain('bashcompinit');
    // Running compinit is the user's ~/.zshrc's business: the script only checks that it ran.
    const run = zsh.stdout.split('\n').filter((line) => !/^\s*(#|print )/.test(line));
    expect(run.filter((line) => /(?<!bash)compinit/.test(line))).toEqual([]);
    expect(zsh.stdout).toContain('$+functions[compdef]');
    const fish = await runSvc(['completion', 'fish']);
    expectOk(fish);
    expect(fish.stdout).toContain(`complete -c svc -n '__fish_use_subcommand' -a 'start serve init`);
    expect(fish.stdout).toContain(
      `complete -c svc -n '__fish_seen_subcommand_from vault; and __fish_seen_subcommand_from restore' -l replace-vault`,
    );
    expectOneLineError(await runSvc(['completion', 'powershell']), 2, /Allowed choices are bash, zsh, fish/);
  });
});

describe('svc completion ids', () => {
  it('lists existing ids in the vault opened here and through the server holding it; bash offers them', async () => {
    const { home, tenant } = await makeTenantHome();
    try {
      const created = await runSvc(
        ['app', 'create', '--name', 'Shop', '--type', 'private', '--permission', 'token:read', '--json'],
        { env: home.env() },
      );
      expectOk(created);
      const app = JSON.parse(created.stdout) as { id: string };
      const inProcess = await runSvc(['completion', 'ids', 'application'], { env: home.env() });
      expectOk(inProcess);
      expect(inProcess.stdout.trim().split('\n')).toEqual(expect.arrayContaining([app.id]));
      expect((await runSvc(['completion', 'ids', 'tenant'], { env: home.env() })).stdout).toBe('Acme\n');

      // bash calls `svc completion ids` for an argument that names an application.
      const bin = path.join(home.dir, 'bin');
      await mkdir(bin, { recursive: true });
      await writeFile(
        path.join(bin, 'svc'),
        `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(SVC_BIN)} "$@"\n`,
        { mode: 0o755 },
      );
      const script = (await runSvc(['completion', 'bash'])).stdout;
      const offered = await complete(script, ['svc', 'app', 'show', ''], {
        PATH: `${bin}:${process.env.PATH ?? ''}`,
        SVC_HOME: home.dir,
      });
      expect(offered).toEqual(expect.arrayContaining([app.id]));

      const server = await startServer(home.env());
      try {
        const served = await runSvc(['completion', 'ids', 'application', '--tenant', tenant.id], {
          env: home.env(),
        });
        expect(served.stdout).toBe(inProcess.stdout);
      } finally {
        expect(await server.stop()).toBe(0);
      }
      // Nothing to list (no vault here): no output and no error on the line being typed.
      const nowhere = await runSvc(['completion', 'ids', 'token'], {
        env: { SVC_HOME: path.join(home.dir, 'none') },
      });
      expect({ code: nowhere.code, stdout: nowhere.stdout, stderr: nowhere.stderr }).toEqual({
        code: 0,
        stdout: '',
        stderr: '',
      });
    } finally {
      await home.cleanup();
    }
  }, 60_000);
});
