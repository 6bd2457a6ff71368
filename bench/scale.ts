import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import type { Result } from 'autocannon';
import { startChild } from './http.ts';
import { emit } from './json-lines.ts';
import { autocannonArgs } from './support/autocannon-cli.ts';
import { nextEvent, startBenchServer, startTogether, stopChild } from './support/child.ts';

const BENCH = 'scale';
const serveScript = fileURLToPath(new URL('./support/serve-scale.ts', import.meta.url));
const CONNECTIONS = 50;

interface Ready {
  url: string;
  key: string;
  tokenId: string;
  searchValue: string;
  tokens: number;
  buildMs: number;
  snapshotMs: number;
  openMs: number;
  /** The open's phases in ms, by field name (`unlock_ms`, `read_ms`, `decrypt_ms`…). */
  openPhases: Record<string, number>;
  fileMiB: number;
  maxRssMiB: number;
}

interface Load {
  url: string;
  method: string;
  headers?: Record<string, string>;
  body?: string;
}

async function rate(load: Load, seconds: number): Promise<Result> {
  return autocannon({ ...load, connections: CONNECTIONS, duration: seconds });
}

interface Probe {
  /** Worst `/healthz` latency, ms. */
  worst: number;
  /** 99th percentile of the probes, ms. */
  p99: number;
  probes: number;
}

/** `/healthz` latencies (one request at a time) until `until` settles, with reads running meanwhile. */
async function probeHealthz(url: string, until: Promise<unknown>, reads: Load): Promise<Probe> {
  let done = false;
  void until.finally(() => (done = true));
  // The reads come from a process of their own: in this one they would share the probe's event loop.
  const traffic = spawn(process.execPath, autocannonArgs(reads, 10, 600, false), { stdio: 'ignore' });
  const exited = once(traffic, 'exit');
  const latencies: number[] = [];
  while (!done) {
    const started = performance.now();
    await fetch(`${url}/healthz`).then((r) => r.arrayBuffer());
    latencies.push(performance.now() - started);
  }
  traffic.kill('SIGINT');
  await exited;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { worst: at(1), p99: at(0.99), probes: latencies.length };
}

/** Echo ceiling of our own server stack, from the same run, for the ratios. */
async function echoCeiling(echo: Awaited<ReturnType<typeof startChild>>, seconds: number): Promise<number> {
  try {
    const result = await rate(
      {
        url: `${echo.ready.url}/echo`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'data:x' }),
      },
      seconds,
    );
    return result.requests.average;
  } finally {
    await stopChild(echo.child);
  }
}

export async function runScaleBench(options: { sizes: number[]; seconds: number }): Promise<void> {
  // The echo and the first vault start side by side (the build takes a while; nothing is measured
  // yet); the vault waits, idle, while the echo is measured.
  const [echo, first] = await startTogether([
    startChild('server-echo'),
    startBenchServer<Ready>(serveScript, String(options.sizes[0])),
  ] as const);
  let ceiling: number;
  try {
    ceiling = await echoCeiling(echo, options.seconds);
  } catch (error) {
    await stopChild(first.child);
    throw error;
  }
  emit({
    bench: BENCH,
    metric: 'server_json_echo_ceiling',
    value: Math.round(ceiling),
    unit: 'req/s',
    connections: CONNECTIONS,
  });
  for (const [index, size] of options.sizes.entries()) {
    const { child, ready } = index === 0 ? first : await startBenchServer<Ready>(serveScript, String(size));
    try {
      const tokens = ready.tokens;
      emit({ bench: BENCH, metric: 'build_ms', value: ready.buildMs, unit: 'ms', tokens });
      emit({
        bench: BENCH,
        metric: 'snapshot_ms',
        value: ready.snapshotMs,
        unit: 'ms',
        tokens,
        file_mib: ready.fileMiB,
      });
      emit({
        bench: BENCH,
        metric: 'open_ms',
        value: ready.openMs,
        unit: 'ms',
        tokens,
        target_ms: 3000,
        ...ready.openPhases,
      });
      const auth = { 'SVC-API-KEY': ready.key };
      const read: Load = {
        url: `${ready.url}/tokens/${encodeURIComponent(ready.tokenId)}`,
        method: 'GET',
        headers: auth,
      };
      const search: Load = {
        url: `${ready.url}/tokens/search`,
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ query: `data:${ready.searchValue}` }),
      };
      for (const [name, load, target] of [
        ['token_read', read, 0.4],
        ['token_search', search, 0.2],
      ] as const) {
        const result = await rate(load, options.seconds);
        emit({
          bench: BENCH,
          metric: `${name}_requests_per_second`,
          value: Math.round(result.requests.average),
          unit: 'req/s',
          tokens,
          connections: CONNECTIONS,
          latency_p50_ms: result.latency.p50,
          latency_p99_ms: result.latency.p99,
          ratio_to_ceiling: +(result.requests.average / ceiling).toFixed(3),
          target_ratio: target,
          errors: result.errors + result.non2xx,
        });
      }
      const compacted = nextEvent(child);
      child.kill('SIGUSR1');
      const during = await probeHealthz(ready.url, compacted, read);
      const event = await compacted;
      // The same probe and read traffic for as long again without a snapshot: what a snapshot adds
      // is the difference (the reads, the garbage collector and the shared cores stall too).
      const baseline = await probeHealthz(
        ready.url,
        new Promise((resolve) => setTimeout(resolve, Math.max(1000, Number(event.ms)))),
        read,
      );
      emit({
        bench: BENCH,
        metric: 'healthz_worst_during_snapshot_ms',
        value: +during.worst.toFixed(1),
        unit: 'ms',
        tokens,
        p99_ms: +during.p99.toFixed(1),
        probes: during.probes,
        snapshot_ms: Number(event.ms),
        target_ms: 50,
      });
      emit({
        bench: BENCH,
        metric: 'healthz_worst_without_snapshot_ms',
        value: +baseline.worst.toFixed(1),
        unit: 'ms',
        tokens,
        p99_ms: +baseline.p99.toFixed(1),
        probes: baseline.probes,
        window_ms: Math.max(1000, Number(event.ms)),
      });
      emit({
        bench: BENCH,
        metric: 'peak_rss',
        value: Number(event.maxRssMiB ?? ready.maxRssMiB),
        unit: 'MiB',
        tokens,
      });
    } finally {
      await stopChild(child);
    }
  }
}
