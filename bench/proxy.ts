/**
 * Proxy benchmark: requests/s and p50/p99 at 1 and 50 connections against one local HTTPS upstream,
 * (a) direct, (b) through our proxy with one detokenized field, (c) through nginx reverse-proxying
 * the same upstream (Debian package `nginx`: installed with apt-get when missing and running as
 * root, else skipped with a note). Load comes from autocannon's CLI in its own process; upstream,
 * vault and nginx each run in their own process too. JSON lines on stdout.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Socket, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emit } from './json-lines.ts';
import { autocannonArgs } from './support/autocannon-cli.ts';
import { cpuMsPerRequest, processCpuMs } from './support/process-cpu.ts';

const BENCH = 'proxy';
const servers = fileURLToPath(new URL('./proxy-servers.ts', import.meta.url));

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
  if (child.exitCode !== null) return;
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
  const args = autocannonArgs(load, connections, seconds);
  return new Promise((resolve, reject) => {
    // The upstream's certificate comes from the benchmark's own CA; the load generator talks only to loopback.
    const child = spawn(process.execPath, args, {
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, NODE_TLS_REJECT_UNAUTHORIZED: '0' },
    });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (out += chunk));
    child.on('error', reject);
    child.on('exit', () => {
      try {
        resolve(JSON.parse(out) as Record<string, unknown>);
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

async function measure(
  name: string,
  load: Load,
  connections: number,
  seconds: number,
  /** The process whose CPU per request the line reports (nginx's work happens in its worker: none). */
  serverPid?: number,
): Promise<number> {
  // A short warm-up first (connections, TLS sessions, JIT), as the reactor suite does.
  await autocannon(load, connections, 1);
  const cpuBefore = processCpuMs(serverPid);
  const result = await autocannon(load, connections, seconds);
  const cpuAfter = processCpuMs(serverPid);
  const requests = result.requests as { average: number; total: number };
  const latency = result.latency as { p50: number; p99: number };
  const non2xx = Number(result.non2xx ?? 0) + Number(result.errors ?? 0);
  emit({
    bench: BENCH,
    metric: `${name}_requests_per_second`,
    value: Math.round(requests.average),
    unit: 'req/s',
    connections,
    latency_p50_ms: latency.p50,
    latency_p99_ms: latency.p99,
    errors: non2xx,
    ...cpuMsPerRequest(cpuBefore, cpuAfter, requests.total),
  });
  return latency.p50;
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

export async function runProxyBench(options: { seconds: number }): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-proxy-'));
  const upstream = await startNode(['upstream', dir]);
  const upstreamPort = Number(upstream.ready.port);
  const children: ChildProcess[] = [upstream.child];
  try {
    const vault = await startNode(['vault', String(upstreamPort), dir]);
    children.push(vault.child);
    const body = (field: string) => JSON.stringify({ amount: 1000, currency: 'usd', card_number: field });
    const json = { 'content-type': 'application/json' };
    const p50 = new Map<string, number>();
    for (const connections of [1, 50]) {
      p50.set(
        `direct:${connections}`,
        await measure(
          'upstream_direct',
          {
            url: `https://127.0.0.1:${upstreamPort}/v1/charges`,
            method: 'POST',
            headers: json,
            body: body('4242424242424242'),
          },
          connections,
          options.seconds,
          upstream.child.pid,
        ),
      );
      p50.set(
        `proxy:${connections}`,
        await measure(
          'vault_proxy_one_detokenized_field',
          {
            url: `${String(vault.ready.url)}/proxy/v1/charges`,
            method: 'POST',
            headers: {
              ...json,
              'svc-api-key': String(vault.ready.key),
              'svc-proxy-key': String(vault.ready.proxyKey),
            },
            body: body(`{{ ${String(vault.ready.tokenId)} }}`),
          },
          connections,
          options.seconds,
          vault.child.pid,
        ),
      );
    }
    for (const connections of [1, 50]) {
      const added = (p50.get(`proxy:${connections}`) ?? 0) - (p50.get(`direct:${connections}`) ?? 0);
      emit({
        bench: BENCH,
        metric: 'proxy_added_p50_ms',
        value: Math.round(added * 100) / 100,
        unit: 'ms',
        connections,
      });
    }

    const nginx = nginxBinary();
    if ('skipped' in nginx) {
      emit({
        bench: BENCH,
        metric: 'nginx_reverse_proxy_requests_per_second',
        value: 0,
        unit: 'req/s',
        skipped: nginx.skipped,
      });
      return;
    }
    const started = await startNginx(nginx.path, dir, upstreamPort);
    children.push(started.child);
    for (const connections of [1, 50]) {
      await measure(
        'nginx_reverse_proxy',
        {
          url: `http://127.0.0.1:${started.port}/v1/charges`,
          method: 'POST',
          headers: json,
          body: body('4242424242424242'),
        },
        connections,
        options.seconds,
      );
    }
  } finally {
    for (const child of children.reverse()) await stop(child);
    await rm(dir, { recursive: true, force: true });
  }
}
