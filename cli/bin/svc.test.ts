import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compiledMain } from './compiled.js';
import { servingNodeOptions } from './server-runtime.js';

/** The launchers as users run them: plain `node`, no build, tsx registered by the launcher itself. */

const repo = fileURLToPath(new URL('../..', import.meta.url));
const svcBin = path.join(repo, 'cli/bin/svc.js');
const runTs = path.join(repo, 'cli/bin/run-ts.js');
const exec = promisify(execFile);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'svc-bin-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** A minimal environment: PATH for node, nothing else inherited (no stray SVC_* from the developer's shell). */
function env(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '', HOME: dir, ...extra };
}

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runNode(args: string[], extraEnv: Record<string, string>, cwd = dir): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd,
      env: env(extraEnv),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('cli/bin/svc.js', () => {
  it('runs `svc config --json` from any directory with SVC_HOME set', async () => {
    const home = path.join(dir, 'h');
    const secret = Buffer.alloc(32, 7).toString('base64');
    const { stdout, stderr } = await exec(process.execPath, [svcBin, 'config', '--json'], {
      cwd: dir,
      env: env({ SVC_HOME: home, SVC_VAULT_KEY: secret }),
    });
    expect(stderr).toBe('');
    expect(stdout).not.toContain(secret);
    const report = JSON.parse(stdout) as { values: Record<string, unknown>; sources: Record<string, string> };
    expect(report.values).toMatchObject({ home, vault_path: path.join(home, 'vault.svc'), port: 8080 });
    expect(report.sources.home).toBe('env');
  });

  it('sets the process exit code: usage 2, missing vault 1', async () => {
    const usage = await runNode([svcBin, 'vault', 'status', '--bogus'], {});
    expect(usage).toMatchObject({ code: 2, stdout: '' });
    expect(usage.stderr).toBe("svc: unknown option '--bogus'\n");
    const missing = await runNode([svcBin, 'vault', 'status'], { SVC_HOME: path.join(dir, 'empty') });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^svc: no vault at [^\n]+\n$/);
  });
});

describe('svc start as a process', () => {
  it('serves until SIGTERM, then closes the vault and exits 0', async () => {
    const home = path.join(dir, 'h');
    const child = spawn(process.execPath, [svcBin, 'start'], {
      cwd: dir,
      env: env({ SVC_HOME: home, SVC_PORT: '0', SVC_LOG_LEVEL: 'warn' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /^URL: (\S+)$/m.exec(stdout);
        if (match?.[1] !== undefined) resolve(match[1]);
      });
      void closed.then((code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    // The serving runtime: the launcher replaced itself (same pid) with the serving options, where
    // this Node can replace a process.
    const replaceable = typeof process.execve === 'function';
    const expected = !replaceable
      ? []
      : servingNodeOptions({
          execArgv: [],
          nodeOptions: undefined,
          cores: os.availableParallelism(),
        });
    if (process.platform === 'linux') {
      const commandLine = (await readFile(`/proc/${child.pid}/cmdline`, 'utf8')).split('\0');
      expect(commandLine.slice(1, 1 + expected.length)).toEqual(expected);
      expect(commandLine).toContain(svcBin);
    }
    child.kill('SIGTERM');
    expect(await closed).toBe(0);
    expect(stdout).toMatch(/^Management API key \(shown once\): key_/m);
    expect(stderr).toContain('Stopping (SIGTERM)');

    const status = await exec(process.execPath, [svcBin, 'vault', 'status', '--json'], {
      cwd: dir,
      env: env({ SVC_HOME: home }),
    });
    expect(JSON.parse(status.stdout)).toMatchObject({ lock_holder: null });
  });
});

describe('svc start under a parent holding an IPC channel', () => {
  it('is not replaced (the channel would be lost) and serves', async () => {
    const child = spawn(process.execPath, [svcBin, 'start'], {
      cwd: dir,
      env: env({ SVC_HOME: path.join(dir, 'h'), SVC_PORT: '0', SVC_LOG_LEVEL: 'warn' }),
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    let stdout = '';
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /^URL: (\S+)$/m.exec(stdout);
        if (match?.[1] !== undefined) resolve(match[1]);
      });
      void closed.then((code) => reject(new Error(`exited ${code}`)));
    });
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(child.connected).toBe(true);
    if (process.platform === 'linux') {
      const commandLine = (await readFile(`/proc/${child.pid}/cmdline`, 'utf8')).split('\0');
      expect(commandLine[1]).toBe(svcBin);
    }
    child.kill('SIGTERM');
    expect(await closed).toBe(0);
  });
});

describe('cli/bin/run-ts.js', () => {
  it('runs a TypeScript file and hands it its arguments', async () => {
    const script = path.join(dir, 'hello.mts');
    await writeFile(
      script,
      'const n: number = 2;\nconsole.log(JSON.stringify({ n, args: process.argv.slice(2) }));\n',
    );
    const { stdout } = await exec(process.execPath, [runTs, script, 'a', '--b'], { cwd: dir, env: env({}) });
    expect(JSON.parse(stdout)).toEqual({ n: 2, args: ['a', '--b'] });
  });
});

describe('cli/bin/compiled.js', () => {
  /** A repository with a built bundle whose manifest lists `src/a.ts` and `package.json` as they are now. */
  async function builtRepo(): Promise<string> {
    const repo = path.join(dir, 'repo');
    await mkdir(path.join(repo, 'src'), { recursive: true });
    await mkdir(path.join(repo, 'dist', 'svc'), { recursive: true });
    await writeFile(path.join(repo, 'src', 'a.ts'), 'export const a = 1;\n');
    await writeFile(path.join(repo, 'package.json'), '{}\n');
    await writeFile(path.join(repo, 'dist', 'svc', 'main.js'), '');
    const inputs: Record<string, [number, number]> = {};
    for (const file of ['src/a.ts', 'package.json']) {
      const info = await stat(path.join(repo, file));
      inputs[file] = [info.mtimeMs, info.size];
    }
    await writeFile(
      path.join(repo, 'dist', 'svc', 'manifest.json'),
      JSON.stringify({ main: 'main.js', inputs }),
    );
    return repo;
  }

  it('runs the bundle while every file it was built from is unchanged', async () => {
    const repo = await builtRepo();
    expect(compiledMain(repo)?.pathname).toBe(path.join(repo, 'dist', 'svc', 'main.js'));
  });

  it('falls back to the sources when a source was edited, touched or removed since the build', async () => {
    const edited = await builtRepo();
    const a = path.join(edited, 'src', 'a.ts');
    // Same size; the later mtime is set explicitly (file times tick coarsely).
    await writeFile(a, 'export const a = 2;\n');
    await utimes(a, new Date(), new Date(Date.now() + 1000));
    expect(compiledMain(edited)).toBeUndefined();

    await rm(edited, { recursive: true });
    const touched = await builtRepo();
    await utimes(path.join(touched, 'package.json'), new Date(), new Date(Date.now() + 1000));
    expect(compiledMain(touched)).toBeUndefined();

    await rm(touched, { recursive: true });
    const removed = await builtRepo();
    await rm(path.join(removed, 'src', 'a.ts'));
    expect(compiledMain(removed)).toBeUndefined();
  });

  it('falls back to the sources when there is no bundle', async () => {
    const repo = await builtRepo();
    await rm(path.join(repo, 'dist'), { recursive: true });
    expect(compiledMain(repo)).toBeUndefined();
  });
});
