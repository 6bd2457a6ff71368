/**
 * Reactor invoke latency (p50/p99) at 1 and 16 connections: a trivial formula, and one that calls
 * `req.svc.tokenize`, beside our server's JSON-echo ceiling measured in the same run. Servers run
 * in child processes so the load generator does not share their event loop.
 */
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { emit } from './json-lines.ts';
import { startBenchServer, startTogether, stopChild } from './support/child.ts';
import { cpuMsPerRequest, processCpuMs } from './support/process-cpu.ts';

const BENCH = 'reactors';
const serveScript = fileURLToPath(new URL('./support/serve-reactors.ts', import.meta.url));
const echoScript = fileURLToPath(new URL('./support/serve.ts', import.meta.url));

interface Ready {
  url: string;
  key?: string;
  trivial?: string;
  tokenizing?: string;
}

async function measure(
  name: string,
  options: { url: string; method: string; headers: Record<string, string>; body: string },
  connections: number,
  seconds: number,
  serverPid: number | undefined,
): Promise<void> {
  // A short warm-up first: the sandbox's worker threads start on first use.
  await autocannon({ ...options, connections, duration: 1 });
  const cpuBefore = processCpuMs(serverPid);
  const result = await autocannon({ ...options, connections, duration: seconds });
  const cpuAfter = processCpuMs(serverPid);
  emit({
    bench: BENCH,
    metric: `${name}_requests_per_second`,
    value: Math.round(result.requests.average),
    unit: 'req/s',
    connections,
    latency_p50_ms: result.latency.p50,
    latency_p99_ms: result.latency.p99,
    errors: result.errors + result.non2xx,
    ...cpuMsPerRequest(cpuBefore, cpuAfter, result.requests.total),
  });
}

export async function runReactorsBench(options: { seconds: number }): Promise<void> {
  const json = { 'content-type': 'application/json' };
  // Both servers start before anything is measured; the echo stops once its cases ran.
  const [echo, vault] = await startTogether([
    startBenchServer<Ready>(echoScript, 'server-echo'),
    startBenchServer<Ready>(serveScript, 'vault'),
  ] as const);
  try {
    for (const connections of [1, 16]) {
      await measure(
        'server_json_echo_ceiling',
        { url: `${echo.ready.url}/echo`, method: 'POST', headers: json, body: '{"args":{"a":1}}' },
        connections,
        options.seconds,
        echo.child.pid,
      );
    }
    await stopChild(echo.child);
    const headers = { ...json, 'SVC-API-KEY': vault.ready.key! };
    for (const connections of [1, 16]) {
      for (const [name, id] of [
        ['react_trivial', vault.ready.trivial!],
        ['react_svc_tokenize', vault.ready.tokenizing!],
      ] as const) {
        await measure(
          name,
          {
            url: `${vault.ready.url}/reactors/${id}/react`,
            method: 'POST',
            headers,
            body: '{"args":{"a":"x"}}',
          },
          connections,
          options.seconds,
          vault.child.pid,
        );
      }
    }
  } finally {
    await stopChild(echo.child);
    await stopChild(vault.child);
  }
}
