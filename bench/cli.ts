/**
 * Start-up time of the `svc` binary as a user meets it: a fresh `node cli/bin/svc.js …` process per
 * run (spawned from here, as hyperfine would), timed from spawn to exit. One JSON line per case with
 * the median and p90, the target, and the ratio to the floor of a bare `node -e ''` spawn measured
 * in the same run. `compiled` says whether the launcher ran the bundle (`dist/svc/`, from an
 * up-to-date `npm run build`) or the TypeScript sources through tsx.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compiledMain } from '../cli/bin/compiled.js';
import { emit } from './json-lines.ts';

const BENCH = 'cli';
const repo = fileURLToPath(new URL('..', import.meta.url));
const svcBin = path.join(repo, 'cli/bin/svc.js');

/** `svc --help`, and one command while a server runs on the vault. */
export const HELP_TARGET_MS = 150;
export const COMMAND_TARGET_MS = 250;

function timeSpawn(args: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(performance.now() - started);
      else reject(new Error(`${args.join(' ')} exited ${code}: ${stderr}`));
    });
  });
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

async function measure(args: readonly string[], env: NodeJS.ProcessEnv, runs: number): Promise<number[]> {
  await timeSpawn(args, env); // warm the file cache
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await timeSpawn(args, env));
  return times.sort((a, b) => a - b);
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/** Starts `svc start` on a fresh home and resolves once it prints its URL. */
function startServer(env: NodeJS.ProcessEnv): Promise<{ stop: () => Promise<void> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [svcBin, 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    const exited = new Promise((done) => child.once('exit', done));
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (/^URL: \S+$/m.test(stdout)) {
        resolve({
          stop: async () => {
            child.kill('SIGTERM');
            await exited;
          },
        });
      }
    });
    child.on('error', reject);
    void exited.then(() => reject(new Error('svc start exited before serving')));
  });
}

export async function runCliBench(options: { runs: number }): Promise<void> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'svc-bench-cli-'));
  const env = { PATH: process.env.PATH ?? '', HOME: home, SVC_HOME: path.join(home, 'svc'), SVC_PORT: '0' };
  const compiled = compiledMain() !== undefined;
  try {
    const floor = await measure(['-e', ''], env, options.runs);
    const floorMedian = quantile(floor, 0.5);
    emit({
      bench: BENCH,
      metric: 'node_spawn_median_ms',
      value: round(floorMedian),
      unit: 'ms',
      runs: options.runs,
    });
    const report = (metric: string, times: number[], target: number) => {
      const median = quantile(times, 0.5);
      emit({
        bench: BENCH,
        metric,
        value: round(median),
        unit: 'ms',
        p90_ms: round(quantile(times, 0.9)),
        runs: options.runs,
        target_ms: target,
        within_target: median <= target,
        ratio_to_node_spawn: Math.round((median / floorMedian) * 100) / 100,
        compiled,
      });
    };
    report('help_median_ms', await measure([svcBin, '--help'], env, options.runs), HELP_TARGET_MS);
    const server = await startServer(env);
    try {
      report(
        'vault_status_while_serving_median_ms',
        await measure([svcBin, 'vault', 'status', '--json'], env, options.runs),
        COMMAND_TARGET_MS,
      );
    } finally {
      await server.stop();
    }
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}
