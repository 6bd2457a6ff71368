/**
 * The soak bench's load generator, a process of its own: autocannon at `connections` connections
 * for `seconds`, each connection cycling through `requests` (one cycle of the mix) from its own
 * place in it. Prints a JSON
 * line per interval (`event: "interval"`: requests answered or failed in it, errors, p50 and p99 in
 * ms) and one at the end (`event: "done"`: totals, errors per kind and status). SIGTERM ends the run early.
 * Usage: `node --import tsx bench/support/soak-load.ts '<json of LoadPlan>'`.
 */
import autocannon from 'autocannon';
import { rotatedFor, type SoakKind } from './soak-mix.ts';
import { IntervalCounter, round } from './soak-stats.ts';

export interface PlannedRequest {
  readonly kind: SoakKind;
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface LoadPlan {
  readonly url: string;
  readonly connections: number;
  readonly seconds: number;
  readonly intervalSeconds: number;
  readonly requests: readonly PlannedRequest[];
}

function print(line: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

function finite(value: number): number | null {
  return Number.isFinite(value) ? round(value, 2) : null;
}

const plan = JSON.parse(process.argv[2] ?? '') as LoadPlan;
const counter = new IntervalCounter();
/** Answers outside 2xx by kind and status (`react_429`). */
const errorsByKind: Record<string, number> = {};
const countError = (kind: SoakKind, status: number) => {
  const key = `${kind}_${status}`;
  errorsByKind[key] = (errorsByKind[key] ?? 0) + 1;
};
let started = 0;
const elapsed = () => round((performance.now() - started) / 1000, 2);
const report = () => {
  const figures = counter.take();
  print({
    event: 'interval',
    elapsed_s: elapsed(),
    requests: figures.requests,
    errors: figures.errors,
    p50_ms: finite(figures.p50Ms),
    p99_ms: finite(figures.p99Ms),
  });
};

const requests = plan.requests.map((request) => ({
  method: request.method,
  path: request.path,
  headers: { ...request.headers },
  ...(request.body === undefined ? {} : { body: request.body }),
  onResponse: (status: number) => {
    if (status < 200 || status > 299) countError(request.kind, status);
  },
}));
let clients = 0;
const run = autocannon({
  url: plan.url,
  connections: plan.connections,
  duration: plan.seconds,
  requests,
  setupClient: (client) => client.setRequests(rotatedFor(requests, clients++, plan.connections)),
});
started = performance.now();
const timer = setInterval(report, plan.intervalSeconds * 1000);
run.on('response', (_client, status, _bytes, ms) => counter.answer(status, ms));
run.on('reqError', () => counter.failure());
process.once('SIGTERM', () => run.stop());
const result = await run;
clearInterval(timer);
report();
print({
  event: 'done',
  elapsed_s: elapsed(),
  requests_total: result.requests.total,
  errors_total: result.errors + result.non2xx,
  timeouts: result.timeouts,
  errors_by_kind: errorsByKind,
});
