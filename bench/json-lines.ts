/** Benchmarks print one JSON object per line: easy to diff, grep and load into anything. */
export interface Measurement {
  readonly bench: string;
  readonly metric: string;
  readonly value: number;
  readonly unit: string;
  readonly [extra: string]: string | number | boolean;
}

export function emit(measurement: Measurement): void {
  process.stdout.write(
    `${JSON.stringify({ ...measurement, node: process.version, at: new Date().toISOString() })}\n`,
  );
}

/** Samples resident memory while `fn` runs and returns the peak in MiB. */
export async function withPeakRss<T>(fn: () => Promise<T>): Promise<{ result: T; peakRssMiB: number }> {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 10);
  try {
    const result = await fn();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { result, peakRssMiB: Math.round(peak / (1024 * 1024)) };
  } finally {
    clearInterval(timer);
  }
}
