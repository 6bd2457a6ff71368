/**
 * The soak bench's arithmetic: per-interval request counts and latency quantiles, and the growth of
 * the server's memory and the vault's size per million requests after a warm-up.
 */

const MIB = 1024 * 1024;

/** The `q` quantile (0–1) of values sorted ascending, by the nearest rank; NaN when there are none. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil(q * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export interface IntervalFigures {
  /** Answers received in the interval (every status), plus requests that failed without one. */
  readonly requests: number;
  /** Answers outside 2xx, and requests that failed without an answer. */
  readonly errors: number;
  /** Of the answers, in ms; NaN when there were none. */
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** Counts one interval's answers; `take()` returns its figures and starts the next interval. */
export class IntervalCounter {
  private latencies: number[] = [];
  private errors = 0;
  private failed = 0;

  /** An answer with its HTTP status, `ms` after its request was sent. */
  answer(status: number, ms: number): void {
    this.latencies.push(ms);
    if (status < 200 || status > 299) this.errors += 1;
  }

  /** A request that ended without an answer (a reset connection, a timeout). */
  failure(): void {
    this.failed += 1;
  }

  take(): IntervalFigures {
    const sorted = this.latencies.sort((a, b) => a - b);
    const figures = {
      requests: sorted.length + this.failed,
      errors: this.errors + this.failed,
      p50Ms: quantile(sorted, 0.5),
      p99Ms: quantile(sorted, 0.99),
    };
    this.latencies = [];
    this.errors = 0;
    this.failed = 0;
    return figures;
  }
}

/** What the bench saw at the end of an interval. */
export interface SoakSample {
  readonly elapsedS: number;
  /** Requests since the start of the load. */
  readonly requests: number;
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
  /** Memory outside V8's heap held by JavaScript objects: ArrayBuffers, WebAssembly memory. */
  readonly externalBytes: number;
  readonly diskBytes: number;
}

export interface Growth {
  /** The sample the growth is counted from: the first at or after the warm-up. */
  readonly fromS: number;
  readonly toS: number;
  readonly requests: number;
  readonly rssGrowthMiB: number;
  readonly rssMiBPerMillion: number;
  readonly heapMiBPerMillion: number;
  readonly externalMiBPerMillion: number;
  readonly diskBytesPerRequest: number;
}

/**
 * From the first sample at or after `warmupS` to the last: how much the server's resident memory,
 * its heap, its external memory and the vault on disk grew per request. Null when no request was answered after it.
 */
export function growthAfterWarmup(samples: readonly SoakSample[], warmupS: number): Growth | null {
  const from = samples.find((s) => s.elapsedS >= warmupS);
  const to = samples.at(-1);
  if (from === undefined || to === undefined || to.requests <= from.requests) return null;
  const requests = to.requests - from.requests;
  const perMillion = (bytes: number) => round(bytes / MIB / (requests / 1e6), 1);
  return {
    fromS: from.elapsedS,
    toS: to.elapsedS,
    requests,
    rssGrowthMiB: round((to.rssBytes - from.rssBytes) / MIB, 1),
    rssMiBPerMillion: perMillion(to.rssBytes - from.rssBytes),
    heapMiBPerMillion: perMillion(to.heapUsedBytes - from.heapUsedBytes),
    externalMiBPerMillion: perMillion(to.externalBytes - from.externalBytes),
    diskBytesPerRequest: round((to.diskBytes - from.diskBytes) / requests, 1),
  };
}

export function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

export function mib(bytes: number): number {
  return round(bytes / MIB, 1);
}
