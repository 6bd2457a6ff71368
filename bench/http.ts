import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { emit } from './json-lines.ts';
import { startBenchServer, stopChild } from './support/child.ts';

export { stopChild };

const BENCH = 'http';
const serveScript = fileURLToPath(new URL('./support/serve.ts', import.meta.url));

interface Ready {
  url: string;
  key?: string;
  tokenId?: string;
}

export function startChild(
  mode: 'echo' | 'server-echo' | 'vault',
): Promise<{ child: ChildProcess; ready: Ready }> {
  return startBenchServer<Ready>(serveScript, mode);
}

async function measure(
  name: string,
  options: { url: string; method: string; headers?: Record<string, string>; body?: string },
  connections: number,
  seconds: number,
): Promise<void> {
  const result = await autocannon({ ...options, connections, duration: seconds });
  emit({
    bench: BENCH,
    metric: `${name}_requests_per_second`,
    value: Math.round(result.requests.average),
    unit: 'req/s',
    connections,
    latency_p50_ms: result.latency.p50,
    latency_p99_ms: result.latency.p99,
    errors: result.errors + result.non2xx,
  });
}

export async function runHttpBench(options: { seconds: number }): Promise<void> {
  const payload = JSON.stringify({
    name: 'Jane Doe',
    card: { type: 'card_number', data: '4242424242424242' },
  });
  const json = { 'content-type': 'application/json' };

  for (const [mode, name] of [
    ['echo', 'fastify_json_echo_ceiling'],
    ['server-echo', 'server_json_echo_ceiling'],
  ] as const) {
    const echo = await startChild(mode);
    try {
      for (const connections of [1, 50]) {
        await measure(
          name,
          { url: `${echo.ready.url}/echo`, method: 'POST', headers: json, body: payload },
          connections,
          options.seconds,
        );
      }
    } finally {
      await stopChild(echo.child);
    }
  }

  const vault = await startChild('vault');
  try {
    const auth = { 'SVC-API-KEY': vault.ready.key! };
    for (const connections of [1, 50]) {
      await measure(
        'tokenize',
        { url: `${vault.ready.url}/tokenize`, method: 'POST', headers: { ...json, ...auth }, body: payload },
        connections,
        options.seconds,
      );
      await measure(
        'token_read',
        {
          url: `${vault.ready.url}/tokens/${encodeURIComponent(vault.ready.tokenId!)}`,
          method: 'GET',
          headers: auth,
        },
        connections,
        options.seconds,
      );
    }
  } finally {
    await stopChild(vault.child);
  }
}
