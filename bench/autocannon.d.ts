// The slice of autocannon's API (a load generator) that bench/ uses.
declare module 'autocannon' {
  export interface Options {
    url: string;
    /** Called with each connection's client as it is made. */
    setupClient?: (client: { setRequests(requests: NonNullable<Options['requests']>): void }) => void;
    connections?: number;
    duration?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    requests?: Array<{
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
      /** Called with each answer to this request (the soak bench counts errors per kind). */
      onResponse?: (status: number) => void;
    }>;
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
  /** A run: awaited for its result, and told of each answer (`responseTime` in ms) and failure. */
  export interface Instance extends PromiseLike<Result> {
    on(
      event: 'response',
      listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void,
    ): Instance;
    on(event: 'reqError', listener: (error: Error) => void): Instance;
    on(event: 'start', listener: () => void): Instance;
    stop(): void;
  }
  function autocannon(options: Options): Instance;
  export default autocannon;
}
