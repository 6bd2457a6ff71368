/**
 * Proxy benchmark: requests/s and p50/p99 at 1 and 50 connections against one local HTTPS upstream,
 * (a) direct, (b) through a bare Node reverse proxy (node:http + undici with the outbound client's
 * Agent options: the runtime's own ceiling for this shape of work), (c) through our proxy with one
 * detokenized field, (e) through the engine's floor (bench/support/proxy-floor.ts: the bare proxy
 * doing the least the vault's rules require per detokenized request, the most any proxy on this
 * engine could reach), (d) through nginx reverse-proxying the same upstream (Debian package `nginx`:
 * installed with apt-get when missing and running as root, else skipped with a note). Our proxy's
 * req/s is printed as a ratio to (b), (d) and (e), and (e)'s to (b). Load comes from autocannon's CLI in its own process;
 * upstream, vault, bare proxy, floor and nginx each run in their own process too. autocannon's latencies
 * are whole milliseconds, so each case is also timed at one connection in microseconds by
 * bench/support/latency-probe.ts (p50, and the added p50 over the direct call). Beside those, the
 * floor under our added p50: the bare proxy's added p50 plus one durable write pair (journal record,
 * acknowledged mark) timed in this process (bench/support/durable-write-pair.ts), the least a proxy
 * can add while each request waits for its audit entry to be durable. JSON lines on stdout.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Socket, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emit } from './json-lines.ts';
import { autocannonArgs } from './support/autocannon-cli.ts';
import { jsonFromProcess, startTogether } from './support/child.ts';
import { timeDurableWritePairs } from './support/durable-write-pair.ts';
import { cpuMsPerRequest, processCpuMs } from './support/process-cpu.ts';
import { benchStorageFs } from './support/volatile-fs.ts';

const BENCH = 'proxy';
/** Our proxy's req/s at 50 connections against the bare Node reverse proxy's. */
const TARGET_RATIO_TO_BARE_NODE = 0.5;
/** What our proxy may add to the direct call's p50 at one connection. */
const TARGET_ADDED_P50_US = 1000;
const servers = fileURLToPath(new URL('./proxy-servers.ts', import.meta.url));
const probe = fileURLToPath(new URL('./support/latency-probe.ts', import.meta.url));

function startNode(args: string[]): Promise<{ child: ChildProcess; ready: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', servers, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let buffer = '';
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      buffer += chunk;
      const nl = buffer.indexOf('\n');
      if (nl >= 0) resolve({ child, ready: JSON.parse(buffer.slice(0, nl)) as Record<string, unknown> });
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`bench server ${args[0]} exited with ${code}`)));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

interface Load {
  readonly url: string;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

/** Runs autocannon's CLI in its own process and reads its JSON result. */
function autocannon(load: Load, connections: number, seconds: number): Promise<Record<string, unknown>> {
  // The upstream's certificate comes from the benchmark's own CA; the load generator talks only to loopback.
  return jsonFromProcess(autocannonArgs(load, connections, seconds), {
    stderr: 'ignore',
    env: { ...process.env, NODE_TLS_REJECT_UNAUTHORIZED: '0' },
  });
}

interface Measured {
  readonly rps: number;
  /** Whole milliseconds. */
  readonly p50: number;
}

async function measure(
  name: string,
  load: Load,
  connections: number,
  seconds: number,
  /** The process whose CPU per request the line reports (nginx's work happens in its worker: none). */
  serverPid?: number,
): Promise<Measured> {
  // A short warm-up first (connections, TLS sessions, JIT), as the reactor suite does.
  await autocannon(load, connections, 1);
  const cpuBefore = processCpuMs(serverPid);
  const result = await autocannon(load, connections, seconds);
  const cpuAfter = processCpuMs(serverPid);
  const requests = result.requests as { average: number; total: number };
  // Whole milliseconds: autocannon's histogram truncates each request's time (0.9 ms counts as 0).
  const latency = result.latency as { p50: number; p99: number; mean: number };
  const non2xx = Number(result.non2xx ?? 0) + Number(result.errors ?? 0);
  emit({
    bench: BENCH,
    metric: `${name}_requests_per_second`,
    value: Math.round(requests.average),
    unit: 'req/s',
    connections,
    latency_p50_ms: latency.p50,
    latency_p99_ms: latency.p99,
    latency_mean_ms: latency.mean,
    errors: non2xx,
    ...cpuMsPerRequest(cpuBefore, cpuAfter, requests.total),
  });
  return { rps: requests.average, p50: latency.p50 };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The nginx binary, installing the Debian package when missing and allowed; null with a reason otherwise. */
function nginxBinary(): { path: string } | { skipped: string } {
  const which = () => spawnSync('sh', ['-c', 'command -v nginx || ls /usr/sbin/nginx'], { encoding: 'utf8' });
  let found = which().stdout.trim().split('\n')[0] ?? '';
  if (found === '') {
    if (process.getuid?.() !== 0) return { skipped: 'nginx is not installed and installing it needs root' };
    const install = spawnSync(
      'sh',
      ['-c', 'apt-get install -y -q nginx-light || apt-get install -y -q nginx'],
      {
        stdio: 'ignore',
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      },
    );
    if (install.status !== 0) return { skipped: 'apt-get could not install nginx' };
    found = which().stdout.trim().split('\n')[0] ?? '';
    if (found === '') return { skipped: 'nginx not found after installing it' };
  }
  return { path: found };
}

async function startNginx(
  binary: string,
  dir: string,
  upstreamPort: number,
): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  // One worker: the vault's server is one event loop, so this compares like with like.
  const config = `
worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream bench { server 127.0.0.1:${upstreamPort}; keepalive 64; }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass https://bench;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_ssl_server_name on;
      proxy_ssl_name upstream.svc.test;
      proxy_ssl_verify on;
      proxy_ssl_trusted_certificate ${dir}/ca.pem;
      proxy_ssl_protocols TLSv1.2 TLSv1.3;
      proxy_ssl_session_reuse on;
    }
  }
}`;
  await writeFile(join(dir, 'nginx.conf'), config);
  const child = spawn(binary, ['-c', join(dir, 'nginx.conf'), '-p', dir], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  // Ready when the port answers.
  for (let i = 0; i < 100; i += 1) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = new Socket().connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return { child, port };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await stop(child);
  throw new Error('nginx did not start');
}

/** One-connection latency with sub-millisecond resolution (bench/support/latency-probe.ts). */
function probeLatency(load: Load, seconds: number): Promise<Record<string, number>> {
  return jsonFromProcess(['--import', 'tsx', probe, JSON.stringify(load), String(seconds)], {
    stderr: 'inherit',
  });
}

interface Case {
  readonly name: string;
  readonly load: Load;
  /** The process whose CPU per request the line reports (nginx's work happens in its worker: none). */
  readonly pid?: number;
}

export async function runProxyBench(options: {
  seconds: number;
  /** Durable write pairs timed for the floor (fewer when the probe's seconds run out first). */
  pairRounds: number;
}): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-proxy-'));
  const upstream = await startNode(['upstream', dir]);
  const upstreamPort = Number(upstream.ready.port);
  const children: ChildProcess[] = [upstream.child];
  try {
    // Side by side: nothing is measured yet, and a start under load takes seconds.
    const [vault, bare, engineFloor] = await startTogether([
      startNode(['vault', String(upstreamPort), dir]),
      startNode(['bare', String(upstreamPort), dir]),
      startNode(['floor', String(upstreamPort), dir]),
    ] as const);
    children.push(vault.child, bare.child, engineFloor.child);
    const body = (field: string) => JSON.stringify({ amount: 1000, currency: 'usd', card_number: field });
    const json = { 'content-type': 'application/json' };
    const plain = body('4242424242424242');
    const cases: Case[] = [
      {
        name: 'upstream_direct',
        load: {
          url: `https://127.0.0.1:${upstreamPort}/v1/charges`,
          method: 'POST',
          headers: json,
          body: plain,
        },
        pid: upstream.child.pid,
      },
      {
        name: 'bare_node_reverse_proxy',
        load: { url: `${String(bare.ready.url)}/v1/charges`, method: 'POST', headers: json, body: plain },
        pid: bare.child.pid,
      },
      {
        name: 'engine_floor_proxy',
        load: {
          url: `${String(engineFloor.ready.url)}/v1/charges`,
          method: 'POST',
          headers: { ...json, 'svc-api-key': String(engineFloor.ready.key) },
          body: body(`{{ ${String(engineFloor.ready.tokenId)} }}`),
        },
        pid: engineFloor.child.pid,
      },
      {
        name: 'vault_proxy_one_detokenized_field',
        load: {
          url: `${String(vault.ready.url)}/proxy/v1/charges`,
          method: 'POST',
          headers: {
            ...json,
            'svc-api-key': String(vault.ready.key),
            'svc-proxy-key': String(vault.ready.proxyKey),
          },
          body: body(`{{ ${String(vault.ready.tokenId)} }}`),
        },
        pid: vault.child.pid,
      },
    ];
    const nginx = nginxBinary();
    if ('skipped' in nginx) {
      emit({
        bench: BENCH,
        metric: 'nginx_reverse_proxy_requests_per_second',
        value: 0,
        unit: 'req/s',
        skipped: nginx.skipped,
      });
    } else {
      const started = await startNginx(nginx.path, dir, upstreamPort);
      children.push(started.child);
      cases.push({
        name: 'nginx_reverse_proxy',
        load: {
          url: `http://127.0.0.1:${started.port}/v1/charges`,
          method: 'POST',
          headers: json,
          body: plain,
        },
      });
    }

    const results = new Map<string, Measured>();
    for (const connections of [1, 50]) {
      for (const c of cases) {
        results.set(
          `${c.name}:${connections}`,
          await measure(c.name, c.load, connections, options.seconds, c.pid),
        );
      }
    }
    const ours = 'vault_proxy_one_detokenized_field';
    for (const connections of [1, 50]) {
      const get = (name: string) => results.get(`${name}:${connections}`);
      const added = (get(ours)?.p50 ?? 0) - (get('upstream_direct')?.p50 ?? 0);
      emit({
        bench: BENCH,
        metric: 'proxy_added_p50_ms',
        value: Math.round(added * 100) / 100,
        unit: 'ms',
        connections,
        resolution: "whole milliseconds (autocannon's histogram)",
      });
      // The target is relative to the runtime's own ceiling for this shape of work (the bare proxy);
      // nginx is printed beside it for scale.
      // The floor (bench/support/proxy-floor.ts) against the bare proxy is the most any proxy on
      // this engine could reach; ours against the floor is the share of its cost that is the engine's.
      const bareRps = get('bare_node_reverse_proxy')?.rps ?? 0;
      const floorRps = get('engine_floor_proxy')?.rps ?? 0;
      if (bareRps > 0 && floorRps > 0) {
        emit({
          bench: BENCH,
          metric: 'engine_floor_proxy_ratio_to_bare_node',
          value: Math.round((floorRps / bareRps) * 1000) / 1000,
          unit: 'ratio',
          connections,
        });
        emit({
          bench: BENCH,
          metric: 'vault_proxy_ratio_to_engine_floor',
          value: Math.round(((get(ours)?.rps ?? 0) / floorRps) * 1000) / 1000,
          unit: 'ratio',
          connections,
        });
      }
      for (const [against, target] of [
        ['bare_node_reverse_proxy', TARGET_RATIO_TO_BARE_NODE],
        ['nginx_reverse_proxy', null],
      ] as const) {
        const base = get(against)?.rps ?? 0;
        if (base <= 0) continue;
        emit({
          bench: BENCH,
          metric: `vault_proxy_ratio_to_${against.replace('_reverse_proxy', '')}`,
          value: Math.round(((get(ours)?.rps ?? 0) / base) * 1000) / 1000,
          unit: 'ratio',
          connections,
          ...(target === null ? {} : { target_ratio: target }),
        });
      }
    }

    // autocannon's latencies are whole milliseconds; one connection, timed in microseconds, instead.
    const probeSeconds = Math.min(3, options.seconds);
    const p50us = new Map<string, number>();
    for (const c of cases) {
      const probed = await probeLatency(c.load, probeSeconds);
      p50us.set(c.name, probed.p50_us ?? 0);
      emit({
        bench: BENCH,
        metric: `${c.name}_latency_p50_us`,
        value: probed.p50_us ?? 0,
        unit: 'µs',
        connections: 1,
        latency_p90_us: probed.p90_us ?? 0,
        latency_p99_us: probed.p99_us ?? 0,
        latency_mean_us: probed.mean_us ?? 0,
        requests: probed.requests ?? 0,
        errors: probed.errors ?? 0,
      });
    }
    const direct = p50us.get('upstream_direct') ?? 0;
    for (const c of cases.slice(1)) {
      emit({
        bench: BENCH,
        metric: `${c.name}_added_p50_us`,
        value: (p50us.get(c.name) ?? 0) - direct,
        unit: 'µs',
        connections: 1,
        ...(c.name === ours ? { target_us: TARGET_ADDED_P50_US } : {}),
      });
    }

    // Each detokenizing request is forwarded only once its `use` entry is durable: one journal
    // record and one acknowledged mark, written one after the other. Timed here, with the servers idle.
    const pair = await timeDurableWritePairs({ rounds: options.pairRounds, maxSeconds: probeSeconds });
    const fileLayer = benchStorageFs().fs === undefined ? 'durable' : 'volatile (no syncs)';
    emit({
      bench: BENCH,
      metric: 'durable_write_pair_latency_p50_us',
      value: pair.p50Us,
      unit: 'µs',
      latency_p90_us: pair.p90Us,
      latency_p99_us: pair.p99Us,
      rounds: pair.rounds,
      journal_record_bytes: pair.recordBytes,
      mark_bytes: pair.markBytes,
      file_layer: fileLayer,
      description:
        "a journal record appended, then the acknowledged mark's slot, on files opened r+durable as the vault's are, in a fresh temp folder",
    });
    const bareAdded = (p50us.get('bare_node_reverse_proxy') ?? 0) - direct;
    const floor = bareAdded + pair.p50Us;
    emit({
      bench: BENCH,
      metric: 'vault_proxy_added_p50_floor_us',
      value: floor,
      unit: 'µs',
      connections: 1,
      bare_node_reverse_proxy_added_p50_us: bareAdded,
      durable_write_pair_p50_us: pair.p50Us,
      description:
        'the least our proxy can add while each request waits for its entry to be durable: the bare proxy added p50 plus one durable write pair p50',
    });
    emit({
      bench: BENCH,
      metric: 'vault_proxy_added_p50_above_floor_us',
      value: (p50us.get(ours) ?? 0) - direct - floor,
      unit: 'µs',
      connections: 1,
      description:
        'our added p50 minus the floor: the part of it that is neither the bare proxy nor the disk',
    });
  } finally {
    for (const child of children.reverse()) await stop(child);
    await rm(dir, { recursive: true, force: true });
  }
}
