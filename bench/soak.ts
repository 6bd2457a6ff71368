/**
 * `npm run bench -- --only soak [--minutes N] [--connections N] [--mix read=80,… | --reads-only]`:
 * the embedded default served for minutes under steady mixed traffic, and what that costs it.
 *
 * `svc start` runs as a user starts it (bench/support/soak-server.ts: a temp home, the rate limit
 * off), with a proxy to a local HTTPS destination (bench/proxy-servers.ts `upstream`, a process of
 * its own) and a reactor running a trivial formula (bench/support/soak-fixtures.ts). Load comes
 * from autocannon in a process of its own (bench/support/soak-load.ts). One JSON line per interval:
 * requests, errors (non-2xx and failed requests), p50/p99, the server's resident memory, heap and
 * external memory (ArrayBuffers and WebAssembly memory: sql.js's database, which never shrinks),
 * the vault's size on disk (its whole folder: vault file, journal and any folder beside them) and
 * the server's CPU per request. Then the checks of a log that kept up: the newest entry of
 * `GET /logs` is the read made after the load stopped, and `svc logs verify` passes. The last line's
 * figure: the server's memory growth per million requests after the warm-up; a vault that keeps
 * serving for months must hold it near zero.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { compiledMain } from '../cli/bin/compiled.js';
import { emit } from './json-lines.ts';
import { jsonFromProcess, startBenchServer, stopChild } from './support/child.ts';
import { diskBytes } from './support/disk-size.ts';
import { cpuMsPerRequest, processCpuMs } from './support/process-cpu.ts';
import { makeFixtures, plannedRequests, type SoakFixtures } from './support/soak-fixtures.ts';
import type { LoadPlan } from './support/soak-load.ts';
import { describeMix, weightedSequence } from './support/soak-mix.ts';
import type { SoakOptions } from './support/soak-options.ts';
import { memoryOf, startSvc, svcArgs, svcEnv, type SvcServer } from './support/soak-server.ts';
import { growthAfterWarmup, mib, round, type SoakSample } from './support/soak-stats.ts';

const BENCH = 'soak';
const destinationScript = fileURLToPath(new URL('./proxy-servers.ts', import.meta.url));
const loadScript = fileURLToPath(new URL('./support/soak-load.ts', import.meta.url));

interface IntervalLine {
  readonly event: 'interval';
  readonly elapsed_s: number;
  readonly requests: number;
  readonly errors: number;
  readonly p50_ms: number | null;
  readonly p99_ms: number | null;
}

interface DoneLine {
  readonly event: 'done';
  readonly requests_total: number;
  readonly errors_total: number;
  readonly timeouts: number;
  readonly errors_by_kind: Readonly<Record<string, number>>;
}

interface Soaked {
  readonly samples: SoakSample[];
  readonly errors: number;
  readonly done: DoneLine | null;
}

/** Runs the load process to its end, printing a line per interval with the server's figures. */
async function soak(server: SvcServer, home: string, plan: LoadPlan): Promise<Soaked> {
  const load = spawn(process.execPath, ['--import', 'tsx', loadScript, JSON.stringify(plan)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(load, 'exit');
  const samples: SoakSample[] = [];
  let requests = 0;
  let errors = 0;
  let done: DoneLine | null = null;
  let cpuBefore = processCpuMs(server.child.pid);
  try {
    for await (const text of createInterface({ input: load.stdout })) {
      const line = JSON.parse(text) as IntervalLine | DoneLine;
      if (line.event === 'done') {
        done = line;
        continue;
      }
      const [memory, disk] = await Promise.all([memoryOf(server.child), diskBytes(home)]);
      const cpuAfter = processCpuMs(server.child.pid);
      requests += line.requests;
      errors += line.errors;
      samples.push({
        elapsedS: line.elapsed_s,
        requests,
        rssBytes: memory.rss,
        heapUsedBytes: memory.heapUsed,
        externalBytes: memory.external,
        diskBytes: disk,
      });
      emit({
        bench: BENCH,
        metric: 'interval',
        value: line.requests,
        unit: 'requests',
        elapsed_s: line.elapsed_s,
        requests_total: requests,
        errors: line.errors,
        ...(line.p50_ms === null ? {} : { latency_p50_ms: line.p50_ms }),
        ...(line.p99_ms === null ? {} : { latency_p99_ms: line.p99_ms }),
        rss_mib: mib(memory.rss),
        heap_used_mib: mib(memory.heapUsed),
        external_mib: mib(memory.external),
        vault_disk_mib: mib(disk),
        ...cpuMsPerRequest(cpuBefore, cpuAfter, line.requests),
      });
      cpuBefore = cpuAfter;
    }
  } finally {
    await stopChild(load);
  }
  await exited;
  return { samples, errors, done };
}

interface Checked {
  readonly marker_read_status: number;
  readonly logs_newest_ok: boolean;
  readonly logs_total: number;
  readonly logs_ms: number;
  readonly verify_ok: boolean;
  readonly verify_entries: number;
  readonly verify_s: number;
}

/**
 * After the load: one read of the marker token, then `GET /logs` (its first page holds the newest
 * entries: that read first) and `svc logs verify` through the running server.
 */
async function checkLog(server: SvcServer, fixtures: SoakFixtures): Promise<Checked> {
  const { url, api_key: managementKey } = server.started;
  const marker = await fetch(`${url}/tokens/${encodeURIComponent(fixtures.markerId)}`, {
    headers: { 'svc-api-key': fixtures.appKey },
  });
  await marker.arrayBuffer();
  const listed = performance.now();
  const logs = await fetch(`${url}/logs?size=5`, { headers: { 'svc-api-key': managementKey } });
  const page = (await logs.json()) as {
    pagination?: { total_items: number };
    data?: Array<{ entity_id: string; entity_ids?: string[]; operation: string }>;
  };
  const logsMs = performance.now() - listed;
  const newest = page.data?.[0];
  const verifying = performance.now();
  const report = await jsonFromProcess<{ ok?: boolean; entries?: number }>(
    svcArgs(['logs', 'verify', '--json']),
    { stderr: 'inherit', env: server.env },
  ).catch(() => ({ ok: false, entries: 0 }));
  return {
    marker_read_status: marker.status,
    logs_newest_ok:
      logs.ok &&
      newest?.operation === 'read' &&
      (newest.entity_id === fixtures.markerId || (newest.entity_ids ?? []).includes(fixtures.markerId)),
    logs_total: page.pagination?.total_items ?? 0,
    logs_ms: Math.round(logsMs),
    verify_ok: report.ok === true,
    verify_entries: report.entries ?? 0,
    verify_s: round((performance.now() - verifying) / 1000, 1),
  };
}

export async function runSoakBench(options: SoakOptions): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-soak-'));
  const home = join(dir, 'home');
  const destinationDir = join(dir, 'destination');
  await mkdir(destinationDir);
  const children: ChildProcess[] = [];
  const started = performance.now();
  try {
    const destination = await startBenchServer<{ port: number }>(destinationScript, [
      'upstream',
      destinationDir,
    ]);
    children.push(destination.child);
    const server = await startSvc(svcEnv(home, join(destinationDir, 'ca.pem')));
    children.push(server.child);
    const fixtures = await makeFixtures(server.started.url, server.started.api_key, destination.ready.port);
    const plan: LoadPlan = {
      url: server.started.url,
      connections: options.connections,
      seconds: options.seconds,
      intervalSeconds: options.intervalSeconds,
      requests: plannedRequests(fixtures, weightedSequence(options.mix)),
    };
    const setupS = round((performance.now() - started) / 1000, 1);
    const { samples, errors, done } = await soak(server, home, plan);
    const checked = await checkLog(server, fixtures);
    const growth = growthAfterWarmup(samples, options.warmupSeconds);
    const first = samples[0];
    const last = samples.at(-1);
    emit({
      bench: BENCH,
      metric: 'rss_growth_mib_per_million_requests',
      value: growth?.rssMiBPerMillion ?? Number.NaN,
      unit: 'MiB/M requests',
      mix: describeMix(options.mix),
      connections: options.connections,
      seconds: options.seconds,
      warmup_s: options.warmupSeconds,
      requests_total: last?.requests ?? 0,
      errors,
      ...Object.fromEntries(
        Object.entries(done?.errors_by_kind ?? {}).map(([kind, n]) => [`errors_${kind}`, n]),
      ),
      ...(growth === null
        ? {}
        : {
            growth_from_s: growth.fromS,
            requests_after_warmup: growth.requests,
            rss_growth_mib: growth.rssGrowthMiB,
            heap_growth_mib_per_million_requests: growth.heapMiBPerMillion,
            external_growth_mib_per_million_requests: growth.externalMiBPerMillion,
            disk_bytes_per_request: growth.diskBytesPerRequest,
          }),
      rss_first_mib: mib(first?.rssBytes ?? 0),
      rss_last_mib: mib(last?.rssBytes ?? 0),
      vault_disk_mib: mib(last?.diskBytes ?? 0),
      ...checked,
      setup_s: setupS,
      compiled: compiledMain() !== undefined,
    });
  } finally {
    for (const child of children.reverse()) await stopChild(child);
    await rm(dir, { recursive: true, force: true });
  }
}
