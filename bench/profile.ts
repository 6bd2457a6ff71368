/**
 * Profiles the vault server under one kind of load, for finding where request CPU goes:
 * `node --import tsx bench/profile.ts <read|search|tokenize|batch|echo|react|proxy|bare|floor|tokenize-floor|read-floor> [seconds] [connections] [out.cpuprofile]`.
 * The server runs in its own process (bench/support/serve.ts; serve-reactors.ts for `react`, a
 * trivial formula; proxy-servers.ts for `proxy`, one detokenized field forwarded to a local HTTPS
 * upstream, and for `bare`, the bare Node reverse proxy of bench/proxy.ts in front of the same
 * upstream: the runtime's own cost of that shape of work; `floor`, the bare proxy doing the engine's
 * least work per detokenized request, bench/support/proxy-floor.ts; `tokenize-floor` and `read-floor`,
 * serve.ts's tokenize and read on the engine's floor) and load comes from this one, with
 * autocannon. After a warm-up, the server's sampling
 * profiler runs for the measured window; then this prints requests/s, the server's CPU time per
 * request (user + system, all its threads: sandbox workers included, though the profile shows only
 * the main thread), the same split by kind of thread (`main` is the event loop: when its µs per
 * request times the requests per second nears a second per second, it is what bounds the rate) and
 * the profile's top functions. `proxy`, `bare` and `floor` also measure the upstream
 * called directly, for the latency the proxy adds. An output path of `none` runs without the sampling
 * profiler: the sampler's own cost is per second, so at a few hundred requests per second (a busy
 * machine, or 1 connection) it inflates CPU per request; compare figures taken the same way.
 * Latencies are whole milliseconds (autocannon's histogram). Not part of `npm run bench`.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { formatSummary, summariseProfile } from './cpuprofile-summary.ts';
import type { CpuProfile } from './cpuprofile-summary.ts';
import { stopChild } from './support/child.ts';
import { searchBody } from './http.ts';
import { useCompiledWorkers } from './support/compiled-workers.ts';

const [route = 'read', secondsArg = '10', connectionsArg = '50', outArg] = process.argv.slice(2);
const seconds = Number(secondsArg);
const connections = Number(connectionsArg);
const out = outArg ?? join(tmpdir(), `svc-${route}-${process.pid}.cpuprofile`);
const script = (path: string) => fileURLToPath(new URL(path, import.meta.url));

interface Line {
  url?: string;
  key?: string;
  tokenId?: string;
  trivial?: string;
  proxyKey?: string;
  port?: number;
  profile?: string;
  cpu_user_ms?: number;
  cpu_system_ms?: number;
  thread_cpu_ms?: Record<string, number>;
}

function start(args: readonly string[]): { child: ChildProcess; lines: AsyncIterator<Line> } {
  // BENCH_SERVER_NODE_FLAGS: V8 or Node flags for the server alone (e.g. a young generation's size).
  const flags = process.env.BENCH_SERVER_NODE_FLAGS?.split(/\s+/).filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...flags, '--import', 'tsx', ...args], {
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

/** The server (and, for `proxy`, the upstream it forwards to) under load. */
async function servers(): Promise<{
  child: ChildProcess;
  lines: AsyncIterator<Line>;
  upstream?: { child: ChildProcess; port: number; dir: string };
}> {
  if (route === 'react') return start([script('./support/serve-reactors.ts')]);
  if (route === 'echo') return start([script('./support/serve.ts'), 'server-echo']);
  if (route === 'tokenize-floor' || route === 'read-floor')
    return start([script('./support/serve.ts'), 'floor']);
  if (route !== 'proxy' && route !== 'bare' && route !== 'floor')
    return start([script('./support/serve.ts'), 'vault']);
  const dir = mkdtempSync(join(tmpdir(), 'svc-profile-proxy-'));
  const upstream = start([script('./proxy-servers.ts'), 'upstream', dir]);
  const port = (await upstream.lines.next()).value.port!;
  return {
    ...start([script('./proxy-servers.ts'), route === 'proxy' ? 'vault' : route, String(port), dir]),
    upstream: { child: upstream.child, port, dir },
  };
}

/** Each kind of thread's CPU ms as µs per request, the busiest first. */
function perRequestUs(byName: Record<string, number>, requests: number): Record<string, number> {
  return Object.fromEntries(
    Object.entries(byName)
      .sort(([, a], [, b]) => b - a)
      .map(([name, ms]) => [name, Math.round((1000 * ms) / Math.max(1, requests))]),
  );
}

await useCompiledWorkers();
const { child, lines, upstream } = await servers();
try {
  const ready = (await lines.next()).value;
  const json = { 'content-type': 'application/json' };
  const auth: Record<string, string> = ready.key ? { 'SVC-API-KEY': ready.key } : {};
  const card = JSON.stringify({ name: 'Jane Doe', card: { type: 'card_number', data: '4242424242424242' } });
  const batch = JSON.stringify(Array.from({ length: 1000 }, (_, i) => `value-${i}`));
  const charge = (field: string) => JSON.stringify({ amount: 1000, currency: 'usd', card_number: field });
  const options =
    route === 'read' || route === 'read-floor'
      ? {
          url: `${ready.url}/${route === 'read-floor' ? 'floor/' : ''}tokens/${encodeURIComponent(ready.tokenId!)}`,
          method: 'GET',
          headers: auth,
        }
      : route === 'search'
        ? {
            url: `${ready.url}/tokens/search`,
            method: 'POST',
            headers: { ...json, ...auth },
            body: searchBody(ready.tokenId!),
          }
        : route === 'echo'
          ? { url: `${ready.url}/echo`, method: 'POST', headers: json, body: card }
          : route === 'react'
            ? {
                url: `${ready.url}/reactors/${ready.trivial!}/react`,
                method: 'POST',
                headers: { ...json, ...auth },
                body: '{"args":{"a":"x"}}',
              }
            : route === 'bare'
              ? {
                  url: `${ready.url}/v1/charges`,
                  method: 'POST',
                  headers: json,
                  body: charge('4242424242424242'),
                }
              : route === 'floor'
                ? {
                    url: `${ready.url}/v1/charges`,
                    method: 'POST',
                    headers: { ...json, ...auth },
                    body: charge(`{{ ${ready.tokenId!} }}`),
                  }
                : route === 'proxy'
                  ? {
                      url: `${ready.url}/proxy/v1/charges`,
                      method: 'POST',
                      headers: { ...json, ...auth, 'svc-proxy-key': ready.proxyKey! },
                      body: charge(`{{ ${ready.tokenId!} }}`),
                    }
                  : {
                      url: `${ready.url}/${route === 'tokenize-floor' ? 'floor/' : ''}tokenize`,
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
  let direct: object = {};
  if (upstream !== undefined) {
    const directOptions = {
      url: `https://127.0.0.1:${upstream.port}/v1/charges`,
      method: 'POST',
      headers: json,
      body: charge('4242424242424242'),
    };
    await autocannon({ ...directOptions, connections, duration: 1 });
    const d = await autocannon({ ...directOptions, connections, duration: Math.min(5, seconds) });
    direct = {
      direct_errors: d.errors + d.non2xx,
      direct_p50_ms: d.latency.p50,
      proxy_added_p50_ms: Math.round((result.latency.p50 - d.latency.p50) * 100) / 100,
    };
  }
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
      server_user_ms: Math.round(done.cpu_user_ms ?? 0),
      server_system_ms: Math.round(done.cpu_system_ms ?? 0),
      server_cpu_us_per_request: Math.round((1000 * cpuMs) / Math.max(1, requests)),
      server_thread_cpu_us_per_request: perRequestUs(done.thread_cpu_ms ?? {}, requests),
      ...direct,
      profile: done.profile,
    })}\n`,
  );
  if (out !== 'none') {
    const profile = JSON.parse(readFileSync(done.profile!, 'utf8')) as CpuProfile;
    process.stdout.write(`${formatSummary(summariseProfile(profile), 35, requests)}\n`);
  }
} finally {
  await stopChild(child);
  if (upstream !== undefined) {
    await stopChild(upstream.child);
    rmSync(upstream.dir, { recursive: true, force: true });
  }
}
