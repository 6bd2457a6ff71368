// The slice of autocannon's API (a load generator) that bench/ uses.
declare module 'autocannon' {
  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    requests?: Array<{ method?: string; path?: string; headers?: Record<string, string>; body?: string }>;
  }
  export interface Histogram {
    average: number;
    mean: number;
    p50: number;
    p99: number;
    max: number;
  }
  export interface Result {
    requests: Histogram & { total: number };
    latency: Histogram;
    errors: number;
    non2xx: number;
    timeouts: number;
    /** Seconds the run lasted. */
    duration: number;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
