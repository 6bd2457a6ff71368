/**
 * `npm run bench -- --only stalls`: how long a request waits behind the server's own background
 * work. A vault of N tokens is served (bench/support/serve-stalls.ts, a process of its own) under 10
 * connections of token reads (autocannon, a process of its own), while a one-connection probe
 * (bench/support/latency-probe.ts, a third process) times `GET /healthz` one request at a time with
 * microsecond resolution. Each case runs for the same window:
 *
 * - `after_open`: the first requests after the open (the reads start, one sign-in, one invitation):
 *   each route compiles its schemas, and the first write grows the database file loaded at its exact
 *   size; the server's CPU figure counts from its start;
 * - `reads_only`: the reads alone, the baseline every other case is compared with;
 * - `snapshot`: background snapshots back to back (`vault.compact()`: the path `svc vault compact`
 *   and the journal threshold take, so a compaction is this same case);
 * - `sign_in`: a burst of sign-ins (`POST /auth/login`, 4 at a time; Argon2id runs in the password
 *   worker threads);
 * - `mail`: invitations (`POST /tenants/self/invitations`, 4 at a time), each mailed to a real SMTP
 *   server in this process that answers every message slowly.
 *
 * Per case one line: the worst `/healthz` latency (target ≤ 50 ms) with its p99, the probe count,
 * the server's longest event-loop block counted in its main thread's own running time (what the
 * server did itself) and the longest its main thread waited for a core (what the machine's other
 * threads and processes did to it), how much of the background work ran, and the machine's load
 * average at the start.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startSmtpSink } from '../core/test-support/smtp-sink.ts';
import { emit } from './json-lines.ts';
import { autocannonArgs } from './support/autocannon-cli.ts';
import { nextEvent, startBenchServer, stopChild } from './support/child.ts';
import type { ChildProcess } from 'node:child_process';

const BENCH = 'stalls';
const serveScript = fileURLToPath(new URL('./support/serve-stalls.ts', import.meta.url));
const probeScript = fileURLToPath(new URL('./support/latency-probe.ts', import.meta.url));
const READ_CONNECTIONS = 10;
const BURST = 4;
/** How long the SMTP server waits before it answers each message. */
const SMTP_ANSWER_MS = 250;
const TARGET_MS = 50;

interface Ready {
  url: string;
  key: string;
  tokenId: string;
  tenantId: string;
  email: string;
  password: string;
  tokens: number;
  fileMiB: number;
}

interface ProbeResult {
  requests: number;
  errors: number;
  p99_us: number;
  max_us: number;
}

/** Background work run until `done()` says the window is over; returns its counts. */
type Activity = (done: () => boolean) => Promise<Record<string, number>>;

/**
 * Since the last call (and resets them): the server's longest event-loop block in its main
 * thread's own running time, and the longest its main thread waited for a core, in ms.
 */
async function blocked(child: ChildProcess): Promise<{ blockMs: number; waitMs: number }> {
  const event = nextEvent(child);
  child.kill('SIGUSR2');
  const line = await event;
  return { blockMs: Number(line.longestMs), waitMs: Number(line.longestWaitMs) };
}

/** `BURST` loops of `send` until the window ends; counts answers by status. */
async function burst(
  done: () => boolean,
  send: (n: number) => Promise<Response>,
): Promise<Record<string, number>> {
  let ok = 0;
  let failed = 0;
  let n = 0;
  await Promise.all(
    Array.from({ length: BURST }, async () => {
      while (!done()) {
        const response = await send((n += 1));
        await response.arrayBuffer();
        if (response.ok) ok += 1;
        else failed += 1;
      }
    }),
  );
  return { ok, failed };
}

/** The probe, resolved once it warmed up; `stop()` ends it and resolves with its figures. */
async function startProbe(url: string): Promise<{ stop: () => Promise<ProbeResult> }> {
  const load = JSON.stringify({ url: `${url}/healthz`, method: 'GET', headers: {} });
  const child = spawn(process.execPath, ['--import', 'tsx', probeScript, load, '3600', '--warm-line'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  let onLine: () => void = () => undefined;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    out += chunk;
    if (out.includes('\n')) onLine();
  });
  const exited = once(child, 'exit');
  await new Promise<void>((resolve) => (onLine = resolve));
  return {
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      return JSON.parse(out.trim().split('\n').at(-1)!) as ProbeResult;
    },
  };
}

/** Waits until the window is over, doing nothing. */
async function idle(done: () => boolean): Promise<Record<string, number>> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 100));
  return {};
}

/**
 * The probe with the reads running, and `activity` started once the probe warmed up and run for
 * `seconds` (a snapshot under way then is waited for): the probe covers all of the activity.
 */
async function measure(
  child: ChildProcess,
  ready: Ready,
  seconds: number,
  activity: Activity,
  first: boolean,
) {
  const reads = {
    url: `${ready.url}/tokens/${encodeURIComponent(ready.tokenId)}`,
    method: 'GET',
    headers: { 'SVC-API-KEY': ready.key },
  };
  const traffic = spawn(process.execPath, autocannonArgs(reads, READ_CONNECTIONS, 3600, false), {
    stdio: 'ignore',
  });
  const trafficExited = once(traffic, 'exit');
  const load = loadavg()[0]!;
  const probe = await startProbe(ready.url);
  // Counted from here (the first case: from the server's start, where its first requests are).
  if (!first) await blocked(child);
  const started = performance.now();
  const counts = await activity(() => performance.now() - started >= seconds * 1000);
  const windowMs = Math.round(performance.now() - started);
  const result = await probe.stop();
  const { blockMs, waitMs } = await blocked(child);
  traffic.kill('SIGINT');
  await trafficExited;
  return { result, counts, load, windowMs, blockMs, waitMs };
}

export async function runStallsBench(options: { tokens: number; seconds: number }): Promise<void> {
  const smtp = await startSmtpSink({ answerDelayMs: SMTP_ANSWER_MS });
  const { child, ready } = await startBenchServer<Ready>(serveScript, String(options.tokens), {
    SVC_BENCH_SMTP_URL: smtp.url,
  });
  try {
    const login = () =>
      fetch(`${ready.url}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: ready.email, password: ready.password }),
      });
    let sessionToken = '';
    const invite = (n: number) =>
      fetch(`${ready.url}/tenants/self/invitations`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${sessionToken}`,
          'svc-tenant-id': ready.tenantId,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ email: `invitee-${Date.now()}-${n}@example.com` }),
      });
    const cases: ReadonlyArray<readonly [string, string, Activity]> = [
      [
        'after_open',
        'the first requests after the open, with the reads starting: each route compiles its schemas, the first write grows the database file',
        async (done) => {
          sessionToken = ((await (await login()).json()) as { token: string }).token;
          await (await invite(0)).arrayBuffer();
          return idle(done);
        },
      ],
      ['reads_only', 'the reads alone (the baseline)', idle],
      [
        'snapshot',
        'background snapshots back to back (vault.compact(), also what `svc vault compact` and the journal threshold run)',
        async (done) => {
          let snapshots = 0;
          let longestMs = 0;
          while (!done()) {
            const event = nextEvent(child);
            child.kill('SIGUSR1');
            const { ms } = await event;
            snapshots += 1;
            longestMs = Math.max(longestMs, Number(ms));
          }
          return { snapshots, longest_snapshot_ms: longestMs };
        },
      ],
      ['sign_in', `sign-ins, ${BURST} at a time`, (done) => burst(done, () => login())],
      [
        'mail',
        `invitations mailed through an SMTP server answering in ${SMTP_ANSWER_MS} ms, ${BURST} at a time`,
        (done) => burst(done, invite),
      ],
    ];
    for (const [index, [name, description, activity]] of cases.entries()) {
      const { result, counts, load, windowMs, blockMs, waitMs } = await measure(
        child,
        ready,
        options.seconds,
        activity,
        index === 0,
      );
      emit({
        bench: BENCH,
        metric: `healthz_worst_${name}_ms`,
        value: +(result.max_us / 1000).toFixed(1),
        unit: 'ms',
        description,
        tokens: ready.tokens,
        file_mib: ready.fileMiB,
        p99_ms: +(result.p99_us / 1000).toFixed(1),
        probes: result.requests,
        longest_loop_block_cpu_ms: blockMs,
        longest_wait_for_core_ms: waitMs,
        probe_errors: result.errors,
        window_ms: windowMs,
        ...counts,
        load_average: +load.toFixed(2),
        target_ms: TARGET_MS,
      });
    }
  } finally {
    await stopChild(child);
    await smtp.close();
  }
}
