import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const SVC_BIN = fileURLToPath(new URL('../cli/bin/svc.js', import.meta.url));

/**
 * Node's arguments before SVC_BIN for a short-lived process: every command, and every server a
 * test starts (it answers a few dozen requests and stops). `--liftoff-only` keeps sql.js's and
 * libsodium's WebAssembly on V8's baseline compiler: optimizing it in the background cost ≈ 0.2 s
 * of CPU per command, more than a command's own work, and a command ends before optimized code
 * would pay back. `--no-opt` does the same for its JavaScript: `svc tenant list`, 15 runs, three
 * rounds alternating, 9.5–10.8 CPU s without it and 8.9–9.2 with it. For a test's `svc serve`,
 * both: ≈ 1.4–1.6 → 1.05–1.1 CPU s to its first answer (`node --import tsx bench/serve-start.ts 7 --
 * --liftoff-only --no-opt`), and the six e2e files that start servers 60.7 / 61.5 → 54.4 / 54.7
 * machine CPU s (`scripts/suite-cpu/machine-cpu.sh npx vitest run <those files>`, alternating).
 * The process, its files and its output are the same; only V8's tiering differs.
 */
export const SHORT_LIVED = ['--liftoff-only', '--no-opt'] as const;

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `svc` as a user would: a real process, its own environment, no terminal. */
export function svc(args: string[], env: Record<string, string>, stdin?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...SHORT_LIVED, SVC_BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: env.SVC_HOME ?? '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin ?? '');
  });
}

/** Starts `svc serve`/`svc start` (SHORT_LIVED) and resolves with the URL it prints. */
export function svcServe(
  args: string[],
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string; stdout: () => string; stderr: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...SHORT_LIVED, SVC_BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: env.SVC_HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => {
      stdout += c.toString();
      const match = /URL: (http:\/\/\S+)/.exec(stdout);
      if (match) resolve({ child, url: match[1]!, stdout: () => stdout, stderr: () => stderr });
    });
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => reject(new Error(`svc exited early (${code}): ${stderr}`)));
  });
}

export async function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  return exited;
}

export async function api(
  url: string,
  method: string,
  path: string,
  options: { key?: string; body?: unknown } = {},
): Promise<{ status: number; body: unknown }> {
  const headers: Record<string, string> = {};
  if (options.key) headers['SVC-API-KEY'] = options.key;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${url}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as unknown) : null };
}
