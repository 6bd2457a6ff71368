import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { emit } from './json-lines.ts';
import { insertCeiling } from './support/insert-ceiling.ts';
import { cpuMsPerRequest, processCpuMs } from './support/process-cpu.ts';
import { startBenchServer, startTogether, stopChild } from './support/child.ts';

export { stopChild };

const BENCH = 'http';
const serveScript = fileURLToPath(new URL('./support/serve.ts', import.meta.url));

interface Ready {
  url: string;
  key?: string;
  tokenId?: string;
}

export function startChild(
  mode: 'echo' | 'server-echo' | 'floor' | 'vault',
): Promise<{ child: ChildProcess; ready: Ready }> {
  return startBenchServer<Ready>(serveScript, mode);
}

/** Targets as ratios to our server's JSON echo at the same connection count. */
const TARGET_RATIO: Record<string, number> = { tokenize: 0.25, token_read: 0.4, token_search: 0.2 };
/** A read's p99 at most this many times the echo's p99 of the same run and connection count. */
const TARGET_READ_P99_RATIO = 3;
/** Tokens per request of the batch tokenize case, and its target as a ratio to the engine's insert ceiling. */
const BATCH_VALUES = 1000;
const BATCH_TARGET_RATIO_TO_INSERT_CEILING = 0.8;

interface Ceiling {
  readonly rate: number;
  readonly p99: number;
}

async function measure(
  name: string,
  options: { url: string; method: string; headers?: Record<string, string>; body?: string },
  connections: number,
  seconds: number,
  ceiling?: Ceiling,
): Promise<{ rate: number; p99: number; requests: number }> {
  const result = await autocannon({ ...options, connections, duration: seconds });
  const value = Math.round(result.requests.average);
  const target = TARGET_RATIO[name];
  const p99Ratio = ceiling && ceiling.p99 > 0 ? result.latency.p99 / ceiling.p99 : undefined;
  emit({
    bench: BENCH,
    metric: `${name}_requests_per_second`,
    value,
    unit: 'req/s',
    connections,
    latency_p50_ms: result.latency.p50,
    latency_p99_ms: result.latency.p99,
    errors: result.errors + result.non2xx,
    ...(ceiling ? { ratio_to_server_echo: Number((value / ceiling.rate).toFixed(3)) } : {}),
    ...(ceiling && target !== undefined ? { target_ratio: target } : {}),
    ...(name === 'token_read' && p99Ratio !== undefined
      ? { p99_ratio_to_server_echo: Number(p99Ratio.toFixed(2)), target_p99_ratio: TARGET_READ_P99_RATIO }
      : {}),
  });
  // Exact rate over the run, for callers that scale it (tokens per request).
  return {
    rate: result.duration > 0 ? result.requests.total / result.duration : value,
    p99: result.latency.p99,
    requests: result.requests.total,
  };
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

/**
 * `seconds` per case; `batchSeconds` for the 1,000-value cases, whose requests take a while each;
 * `ceilingRows` tokens per round of the engine's insert ceiling.
 */
export async function runHttpBench(options: {
  seconds: number;
  batchSeconds: number;
  ceilingRows: number;
  /** Connection counts the floors are measured at (a quick run: 50 alone). */
  floorConnections: readonly number[];
}): Promise<void> {
  const payload = TOKENIZE_PAYLOAD;
  const json = { 'content-type': 'application/json' };

  // Every server starts before anything is measured (a start under load takes seconds); each is
  // stopped once its cases ran, so no idle server shares the machine with a later case.
  const [fastifyEcho, serverEcho, floor, vault] = await startTogether([
    startChild('echo'),
    startChild('server-echo'),
    startChild('floor'),
    startChild('vault'),
  ] as const);
  const ceilings = new Map<number, Ceiling>();
  try {
    for (const [echo, name] of [
      [fastifyEcho, 'fastify_json_echo_ceiling'],
      [serverEcho, 'server_json_echo_ceiling'],
    ] as const) {
      try {
        for (const connections of [1, 50]) {
          const { rate, p99 } = await measure(
            name,
            { url: `${echo.ready.url}/echo`, method: 'POST', headers: json, body: payload },
            connections,
            options.seconds,
          );
          if (echo === serverEcho) ceilings.set(connections, { rate: Math.round(rate), p99 });
        }
      } finally {
        await stopChild(echo.child);
      }
    }
    // The most a tokenize or a read route can reach on this engine (bench/support/engine-floor.ts).
    const floors = new Map<string, number>();
    try {
      const floorAuth = { 'SVC-API-KEY': floor.ready.key! };
      for (const connections of options.floorConnections) {
        const cases = [
          [
            'tokenize',
            {
              url: `${floor.ready.url}/floor/tokenize`,
              method: 'POST',
              headers: { ...json, ...floorAuth },
              body: payload,
            },
          ],
          [
            'token_read',
            {
              url: `${floor.ready.url}/floor/tokens/${encodeURIComponent(floor.ready.tokenId!)}`,
              method: 'GET',
              headers: floorAuth,
            },
          ],
        ] as const;
        for (const [name, load] of cases) {
          const { rate } = await measure(
            `${name}_engine_floor`,
            load,
            connections,
            options.seconds,
            ceilings.get(connections),
          );
          floors.set(`${name}:${connections}`, rate);
        }
      }
    } finally {
      await stopChild(floor.child);
    }
    /** Emits `<name>`'s rate against its floor's at the same connection count, where it was measured. */
    const againstFloor = (name: string, connections: number, rate: number) => {
      const floorRate = floors.get(`${name}:${connections}`);
      if (floorRate === undefined) return;
      emit({
        bench: BENCH,
        metric: `${name}_ratio_to_engine_floor`,
        value: Number((rate / floorRate).toFixed(3)),
        unit: 'ratio',
        connections,
      });
    };
    const auth = { 'SVC-API-KEY': vault.ready.key! };
    for (const connections of [1, 50]) {
      const { rate } = await measure(
        'tokenize',
        { url: `${vault.ready.url}/tokenize`, method: 'POST', headers: { ...json, ...auth }, body: payload },
        connections,
        options.seconds,
        ceilings.get(connections),
      );
      againstFloor('tokenize', connections, rate);
      const read = await measure(
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
      againstFloor('token_read', connections, read.rate);
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
    // The engine's own insert rate, measured here while every server idles: the batch's ceiling.
    const ceiling = await insertCeiling(options.ceilingRows, 5);
    emit({
      bench: BENCH,
      metric: 'engine_insert_ceiling',
      value: ceiling.value,
      unit: 'tokens per CPU-second',
      rounds: ceiling.rounds.join(' '),
      rows_per_round: options.ceilingRows,
    });
    const batch = JSON.stringify(Array.from({ length: BATCH_VALUES }, (_, i) => `value-${i}`));
    for (const connections of [1, 4]) {
      const cpuBefore = processCpuMs(vault.child.pid);
      const { rate: perSecond, requests } = await measure(
        `tokenize_${BATCH_VALUES}_values`,
        { url: `${vault.ready.url}/tokenize`, method: 'POST', headers: { ...json, ...auth }, body: batch },
        connections,
        options.batchSeconds,
      );
      const cpu = cpuMsPerRequest(cpuBefore, processCpuMs(vault.child.pid), requests);
      const tokensPerSecond = perSecond * BATCH_VALUES;
      // The server's CPU (all its threads) per token, against the engine's CPU per token.
      const perCpuSecond =
        cpu.server_cpu_ms_per_request === undefined
          ? undefined
          : (1000 * BATCH_VALUES) / cpu.server_cpu_ms_per_request;
      emit({
        bench: BENCH,
        metric: `tokenize_${BATCH_VALUES}_values_tokens_per_second`,
        value: Math.round(tokensPerSecond),
        unit: 'tokens/s',
        connections,
        ratio_to_insert_ceiling: Number((tokensPerSecond / ceiling.value).toFixed(3)),
        ...(perCpuSecond === undefined
          ? {}
          : {
              server_tokens_per_cpu_second: Math.round(perCpuSecond),
              cpu_ratio_to_insert_ceiling: Number((perCpuSecond / ceiling.value).toFixed(3)),
            }),
        target_ratio: BATCH_TARGET_RATIO_TO_INSERT_CEILING,
      });
    }
  } finally {
    for (const started of [fastifyEcho, serverEcho, floor, vault]) await stopChild(started.child);
  }
}
