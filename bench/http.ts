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

/** Targets as ratios to our server's JSON echo at the same connection count (issue targets). */
const TARGET_RATIO: Record<string, number> = { tokenize: 0.3, token_read: 0.5, token_search: 0.2 };
/** Tokens per request of the batch tokenize case, and its target in tokens per second. */
const BATCH_VALUES = 1000;
const BATCH_TARGET_TOKENS_PER_SECOND = 50_000;

async function measure(
  name: string,
  options: { url: string; method: string; headers?: Record<string, string>; body?: string },
  connections: number,
  seconds: number,
  ceiling?: number,
): Promise<number> {
  const result = await autocannon({ ...options, connections, duration: seconds });
  const value = Math.round(result.requests.average);
  const target = TARGET_RATIO[name];
  emit({
    bench: BENCH,
    metric: `${name}_requests_per_second`,
    value,
    unit: 'req/s',
    connections,
    latency_p50_ms: result.latency.p50,
    latency_p99_ms: result.latency.p99,
    errors: result.errors + result.non2xx,
    ...(ceiling ? { ratio_to_server_echo: Number((value / ceiling).toFixed(3)) } : {}),
    ...(ceiling && target !== undefined ? { target_ratio: target } : {}),
  });
  // Exact rate over the run, for callers that scale it (tokens per request).
  return result.duration > 0 ? result.requests.total / result.duration : value;
}

/** The tokenize request body of the HTTP figures (one card, beside a name), shared by the suites. */
export const TOKENIZE_PAYLOAD = JSON.stringify({
  name: 'Jane Doe',
  card: { type: 'card_number', data: '4242424242424242' },
});

/**
 * The search request body of the HTTP figures: the bench vault's one stored card by id, type and
 * container prefix, a page of 10. The id keeps the match to one token however many the tokenize
 * cases wrote before, so the figure is the request's own cost, not the vault's size.
 */
export function searchBody(tokenId: string): string {
  return JSON.stringify({ query: `id:"${tokenId}" AND type:card_number AND container:"/pci/*"`, size: 10 });
}

export async function runHttpBench(options: { seconds: number }): Promise<void> {
  const payload = TOKENIZE_PAYLOAD;
  const json = { 'content-type': 'application/json' };

  const ceilings = new Map<number, number>();
  for (const [mode, name] of [
    ['echo', 'fastify_json_echo_ceiling'],
    ['server-echo', 'server_json_echo_ceiling'],
  ] as const) {
    const echo = await startChild(mode);
    try {
      for (const connections of [1, 50]) {
        const value = await measure(
          name,
          { url: `${echo.ready.url}/echo`, method: 'POST', headers: json, body: payload },
          connections,
          options.seconds,
        );
        if (mode === 'server-echo') ceilings.set(connections, Math.round(value));
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
        ceilings.get(connections),
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
        ceilings.get(connections),
      );
      await measure(
        'token_search',
        {
          url: `${vault.ready.url}/tokens/search`,
          method: 'POST',
          headers: { ...json, ...auth },
          body: searchBody(vault.ready.tokenId!),
        },
        connections,
        options.seconds,
        ceilings.get(connections),
      );
    }
    const batch = JSON.stringify(Array.from({ length: BATCH_VALUES }, (_, i) => `value-${i}`));
    for (const connections of [1, 4]) {
      const perSecond = await measure(
        `tokenize_${BATCH_VALUES}_values`,
        { url: `${vault.ready.url}/tokenize`, method: 'POST', headers: { ...json, ...auth }, body: batch },
        connections,
        // A request takes a while; a short run would end before enough of them complete.
        Math.max(options.seconds * 3, 6),
      );
      emit({
        bench: BENCH,
        metric: `tokenize_${BATCH_VALUES}_values_tokens_per_second`,
        value: Math.round(perSecond * BATCH_VALUES),
        unit: 'tokens/s',
        connections,
        target: BATCH_TARGET_TOKENS_PER_SECOND,
      });
    }
  } finally {
    await stopChild(vault.child);
  }
}
