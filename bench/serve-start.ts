/**
 * CPU a `svc serve` process spends from its start to its first answer (GET /healthz), as the e2e
 * tests and a user's first request meet it: `node --import tsx bench/serve-start.ts [runs]`
 * (default 7), then any Node flags to start it with (`-- --no-opt`, say). Initialises a vault in a temp home once, then starts `node cli/bin/svc.js serve
 * --port 0` `runs` times, reads the process's user + system CPU from /proc after the first answer,
 * and stops it. One JSON line per run and one with the median. Linux only (/proc). Run
 * `npm run build` first to measure the bundle a user runs (the launcher runs the sources otherwise).
 * Not part of `npm run bench`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emit } from './json-lines.ts';

const BENCH = 'serve-start';
const runs = Number(process.argv[2] ?? 7);
const nodeFlags = process.argv.slice(3).filter((arg) => arg !== '--');
const svcBin = fileURLToPath(new URL('../cli/bin/svc.js', import.meta.url));
const home = await mkdtemp(join(tmpdir(), 'svc-serve-start-'));
const env = { PATH: process.env.PATH ?? '', HOME: home, SVC_HOME: home, SVC_LOG_LEVEL: 'warn' };
const ticks = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim() || 100);

/** User + system CPU seconds of a running process. */
async function cpuSecondsOf(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / ticks;
}

try {
  const init = spawnSync(process.execPath, [svcBin, 'init'], { env, encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`svc init failed: ${init.stderr}`);
  const seconds: number[] = [];
  for (let i = 0; i < runs; i++) {
    const child = spawn(process.execPath, [...nodeFlags, svcBin, 'serve', '--port', '0'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /URL: (http:\/\/\S+)/.exec(out);
        if (match?.[1] !== undefined) resolve(match[1]);
      });
      child.on('exit', (code) => reject(new Error(`svc serve exited (${code})`)));
    });
    const answer = await fetch(`${url}/healthz`);
    await answer.text();
    const cpu = await cpuSecondsOf(child.pid as number);
    seconds.push(cpu);
    emit({ bench: BENCH, metric: 'cpu_to_first_answer', value: cpu, unit: 's', run: i + 1 });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  const sorted = [...seconds].sort((a, b) => a - b);
  emit({
    bench: BENCH,
    metric: 'cpu_to_first_answer_median',
    value: sorted[Math.floor(runs / 2)] ?? NaN,
    unit: 's',
    runs,
    nodeFlags: nodeFlags.join(' '),
  });
} finally {
  await rm(home, { recursive: true, force: true });
}
