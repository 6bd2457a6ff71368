import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';

/**
 * Starts a bench server script in its own process (so the load generator never shares its event
 * loop) and resolves with the first line it prints: a JSON object naming its URL (or port) and
 * fixtures. `mode` is the script's argument, or its arguments. `env` is added to this process's
 * environment (where a script finds a database and its key).
 */
export function startBenchServer<Ready extends object>(
  script: string,
  mode: string | readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<{ child: ChildProcess; ready: Ready }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...[mode].flat()], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, ...env },
    });
    let buffer = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      buffer += chunk;
      const nl = buffer.indexOf('\n');
      if (nl >= 0) resolve({ child, ready: JSON.parse(buffer.slice(0, nl)) as Ready });
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      reject(new Error(`bench server (${[mode].flat().join(' ')}) exited with ${code}`)),
    );
  });
}

/** Stops a bench server and waits for its exit; one that already exited is left alone. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Runs a Node process to its end and parses the one JSON document it prints on stdout. */
export function jsonFromProcess<T>(
  args: readonly string[],
  options: { readonly stderr: 'ignore' | 'inherit'; readonly env?: NodeJS.ProcessEnv },
): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      stdio: ['ignore', 'pipe', options.stderr],
      env: options.env ?? process.env,
    });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (out += chunk));
    child.on('error', reject);
    child.on('exit', () => {
      try {
        resolve(JSON.parse(out) as T);
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

/** The next JSON event line a bench server prints after its ready line (one line per event). */
export function nextEvent(child: ChildProcess): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    let buffer = '';
    const onData = (chunk: string) => {
      buffer += chunk;
      const nl = buffer.indexOf('\n');
      if (nl < 0) return;
      child.stdout!.off('data', onData);
      resolve(JSON.parse(buffer.slice(0, nl)) as Record<string, unknown>);
    };
    child.stdout!.on('data', onData);
  });
}

/**
 * Starts bench servers side by side (a start under load takes seconds, and nothing is measured
 * yet); if one fails, the others are stopped before the failure is thrown.
 */
export async function startTogether<T extends readonly Promise<{ child: ChildProcess }>[]>(
  starts: T,
): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled = await Promise.allSettled(starts);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed !== undefined) {
    for (const s of settled) if (s.status === 'fulfilled') await stopChild(s.value.child);
    throw failed.reason;
  }
  return settled.map((s) => (s as PromiseFulfilledResult<{ child: ChildProcess }>).value) as {
    -readonly [K in keyof T]: Awaited<T[K]>;
  };
}
