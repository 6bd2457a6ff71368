/**
 * A one-connection latency probe with sub-millisecond resolution, run in a process of its own:
 * `node --import tsx bench/support/latency-probe.ts <load-json> <seconds> [--warm-line]` (SIGTERM ends it sooner),
 * where the load is
 * `{url, method, headers, body}`. It sends one request at a time over one kept-alive connection
 * (closed loop, like autocannon at 1 connection) and prints one JSON line: requests, errors (non-2xx
 * or failed), and the p50/p90/p99/max/mean of each request's time from sending to the last byte of the
 * answer, in microseconds (process.hrtime). autocannon's histogram keeps whole milliseconds (a
 * 0.9 ms request counts as 0), so it cannot show a target of half a millisecond. HTTPS is
 * accepted without verification: the probe only ever talks to the benchmark's own loopback servers.
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

interface Load {
  readonly url: string;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

const load = JSON.parse(process.argv[2] ?? '{}') as Load;
const seconds = Number(process.argv[3] ?? '3');
/** `--warm-line`: print `{"warm":true}` once warmed up, before the timed requests. */
const warmLine = process.argv[4] === '--warm-line';
const url = new URL(load.url);
const https = url.protocol === 'https:';
const agent = https
  ? new HttpsAgent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false })
  : new HttpAgent({ keepAlive: true, maxSockets: 1 });
const body = load.body === undefined ? undefined : Buffer.from(load.body);
const headers = { ...load.headers, ...(body ? { 'content-length': String(body.length) } : {}) };

function once(): Promise<{ ok: boolean; ns: bigint }> {
  return new Promise((resolve) => {
    const start = process.hrtime.bigint();
    const send = https ? httpsRequest : httpRequest;
    const req = send(url, { method: load.method, headers, agent }, (res) => {
      res.on('data', () => undefined);
      res.on('end', () =>
        resolve({
          ok: (res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300,
          ns: process.hrtime.bigint() - start,
        }),
      );
    });
    req.on('error', () => resolve({ ok: false, ns: process.hrtime.bigint() - start }));
    req.end(body);
  });
}

const warmUntil = Date.now() + 500;
while (Date.now() < warmUntil) await once();
const times: number[] = [];
let errors = 0;
const until = Date.now() + seconds * 1000;
// SIGTERM ends the run early, with the figures so far.
let stopped = false;
process.on('SIGTERM', () => (stopped = true));
if (warmLine) process.stdout.write('{"warm":true}\n');
while (Date.now() < until && !stopped) {
  const { ok, ns } = await once();
  if (ok) times.push(Number(ns) / 1000);
  else errors += 1;
}
times.sort((a, b) => a - b);
const at = (q: number) => Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0);
const mean = times.length === 0 ? 0 : Math.round(times.reduce((a, b) => a + b, 0) / times.length);
process.stdout.write(
  `${JSON.stringify({ requests: times.length, errors, p50_us: at(0.5), p90_us: at(0.9), p99_us: at(0.99), max_us: Math.round(times[times.length - 1] ?? 0), mean_us: mean })}\n`,
);
agent.destroy();
