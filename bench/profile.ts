/**
 * Profiles the vault server under one kind of load, for finding where request CPU goes:
 * `node --import tsx bench/profile.ts <read|tokenize|batch|echo> [seconds] [connections] [out.cpuprofile]`.
 * The server runs in its own process (bench/support/serve.ts) and load comes from this one, with
 * autocannon. After a warm-up, the server's sampling profiler runs for the measured window; then
 * this prints requests/s, the server's CPU time per request (user + system, all its threads) and
 * the profile's top functions. Not part of `npm run bench`.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { formatSummary, summariseProfile } from './cpuprofile-summary.ts';
import type { CpuProfile } from './cpuprofile-summary.ts';
import { stopChild } from './support/child.ts';

const [route = 'read', secondsArg = '10', connectionsArg = '50', outArg] = process.argv.slice(2);
const seconds = Number(secondsArg);
const connections = Number(connectionsArg);
const out = outArg ?? join(tmpdir(), `svc-${route}-${process.pid}.cpuprofile`);
const serveScript = fileURLToPath(new URL('./support/serve.ts', import.meta.url));

interface Line {
  url?: string;
  key?: string;
  tokenId?: string;
  profile?: string;
  cpu_user_ms?: number;
  cpu_system_ms?: number;
}

function start(mode: string): { child: ChildProcess; lines: AsyncIterator<Line> } {
  const child = spawn(process.execPath, ['--import', 'tsx', serveScript, mode], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, BENCH_CPU_PROFILE: out },
  });
  const queue: Line[] = [];
  let wake: (() => void) | null = null;
  let buffer = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      queue.push(JSON.parse(buffer.slice(0, nl)) as Line);
      buffer = buffer.slice(nl + 1);
      wake?.();
    }
  });
  const lines: AsyncIterator<Line> = {
    async next() {
      while (queue.length === 0) await new Promise<void>((r) => (wake = r));
      return { value: queue.shift()!, done: false };
    },
  };
  return { child, lines };
}

const { child, lines } = start(route === 'echo' ? 'server-echo' : 'vault');
try {
  const ready = (await lines.next()).value;
  const json = { 'content-type': 'application/json' };
  const auth: Record<string, string> = ready.key ? { 'SVC-API-KEY': ready.key } : {};
  const card = JSON.stringify({ name: 'Jane Doe', card: { type: 'card_number', data: '4242424242424242' } });
  const batch = JSON.stringify(Array.from({ length: 1000 }, (_, i) => `value-${i}`));
  const options =
    route === 'read'
      ? { url: `${ready.url}/tokens/${encodeURIComponent(ready.tokenId!)}`, method: 'GET', headers: auth }
      : route === 'echo'
        ? { url: `${ready.url}/echo`, method: 'POST', headers: json, body: card }
        : {
            url: `${ready.url}/tokenize`,
            method: 'POST',
            headers: { ...json, ...auth },
            body: route === 'batch' ? batch : card,
          };
  await autocannon({ ...options, connections, duration: Math.min(3, seconds) }); // warm-up
  child.kill('SIGUSR2');
  const result = await autocannon({ ...options, connections, duration: seconds });
  child.kill('SIGUSR2');
  const done = (await lines.next()).value;
  const requests = result.requests.total;
  const cpuMs = (done.cpu_user_ms ?? 0) + (done.cpu_system_ms ?? 0);
  process.stdout.write(
    `${JSON.stringify({
      route,
      connections,
      seconds: result.duration,
      requests,
      req_per_s: Math.round(requests / result.duration),
      p50_ms: result.latency.p50,
      p99_ms: result.latency.p99,
      errors: result.errors + result.non2xx,
      server_cpu_ms: Math.round(cpuMs),
      server_cpu_us_per_request: Math.round((1000 * cpuMs) / Math.max(1, requests)),
      profile: done.profile,
    })}\n`,
  );
  const profile = JSON.parse(readFileSync(done.profile!, 'utf8')) as CpuProfile;
  process.stdout.write(`${formatSummary(summariseProfile(profile), 35, requests)}\n`);
} finally {
  await stopChild(child);
}
