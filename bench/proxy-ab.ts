/**
 * Compares the proxy route's CPU per request of another tree (a detached worktree of the old code)
 * with this one's, both serving at once: `node --import tsx bench/proxy-ab.ts <old tree> [rounds]
 * [seconds] [connections]`. One upstream; vault proxies started old, new, new, old (each tree's own
 * bench/proxy-servers.ts), so neither side always starts first; each round sends a burst of load to
 * each in turn (the order rotating) and reads that server's CPU around its burst, and every fourth
 * round the bare Node proxy's. Servers run side by side in the same minutes, so a busy machine
 * slows both alike, where runs one after the other meet different loads. Per round it prints
 * (stderr) the mean CPU per request of each side; at the end (stdout, one JSON line) the medians,
 * the new/old ratio's median and geometric mean, and in how many rounds the new tree used less.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type Options } from 'autocannon';
import { startBenchServer, startTogether, stopChild } from './support/child.ts';
import { processCpuMs } from './support/process-cpu.ts';

const [oldTree, roundsArg = '20', secondsArg = '3', connectionsArg = '50'] = process.argv.slice(2);
if (oldTree === undefined)
  throw new Error('usage: bench/proxy-ab.ts <old tree> [rounds] [seconds] [connections]');
const newTree = fileURLToPath(new URL('..', import.meta.url));
const rounds = Number(roundsArg);
const duration = Number(secondsArg);
const connections = Number(connectionsArg);
const serversOf = (tree: string) => join(resolve(tree), 'bench', 'proxy-servers.ts');

interface VaultReady {
  readonly url: string;
  readonly key: string;
  readonly proxyKey: string;
  readonly tokenId: string;
}
interface Server {
  readonly side: 'old' | 'new';
  readonly child: ChildProcess;
  readonly load: Options;
}

const charge = (field: string) => JSON.stringify({ amount: 1000, currency: 'usd', card_number: field });
const json = { 'content-type': 'application/json' };

/** The server's CPU per request (µs) over one burst of load. */
async function burst(server: Pick<Server, 'child' | 'load'>): Promise<number> {
  const before = processCpuMs(server.child.pid) ?? 0;
  const result = await autocannon({ ...server.load, connections, duration });
  // The invocation entries nobody waits for are written within a few milliseconds of the last answer.
  await new Promise((done) => setTimeout(done, 100));
  const after = processCpuMs(server.child.pid) ?? 0;
  if (result.errors + result.non2xx > 0) throw new Error(`${result.errors + result.non2xx} failed requests`);
  return ((after - before) * 1000) / Math.max(1, result.requests.total);
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

const dir = mkdtempSync(join(tmpdir(), 'svc-proxy-ab-'));
const upstream = await startBenchServer<{ port: number }>(serversOf(newTree), ['upstream', dir]);
const port = String(upstream.ready.port);
const started = await startTogether([
  startBenchServer<VaultReady>(serversOf(oldTree), ['vault', port, dir]),
  startBenchServer<VaultReady>(serversOf(newTree), ['vault', port, dir]),
  startBenchServer<VaultReady>(serversOf(newTree), ['vault', port, dir]),
  startBenchServer<VaultReady>(serversOf(oldTree), ['vault', port, dir]),
  startBenchServer<{ url: string }>(serversOf(newTree), ['bare', port, dir]),
] as const);
const vaults: Server[] = started.slice(0, 4).map(({ child, ready }, i) => {
  const r = ready as VaultReady;
  return {
    side: i === 0 || i === 3 ? 'old' : 'new',
    child,
    load: {
      url: `${r.url}/proxy/v1/charges`,
      method: 'POST',
      headers: { ...json, 'SVC-API-KEY': r.key, 'svc-proxy-key': r.proxyKey },
      body: charge(`{{ ${r.tokenId} }}`),
    },
  };
});
const bare = {
  child: started[4].child,
  load: {
    url: `${started[4].ready.url}/v1/charges`,
    method: 'POST',
    headers: json,
    body: charge('4242424242424242'),
  },
} satisfies Pick<Server, 'child' | 'load'>;

try {
  for (const server of [...vaults, bare]) await autocannon({ ...server.load, connections, duration: 2 }); // warm-up
  const olds: number[] = [];
  const news: number[] = [];
  const bares: number[] = [];
  const loads: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const sums = { old: 0, new: 0 };
    for (let i = 0; i < vaults.length; i++) {
      const server = vaults[(i + round) % vaults.length]!;
      sums[server.side] += (await burst(server)) / 2;
    }
    olds.push(sums.old);
    news.push(sums.new);
    if (round % 4 === 0) bares.push(await burst(bare));
    loads.push(Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]));
    process.stderr.write(
      `round ${round} (load ${loads.at(-1)}): old ${sums.old.toFixed(0)} µs, new ${sums.new.toFixed(0)} µs per request, ` +
        `new/old ${(sums.new / sums.old).toFixed(3)}\n`,
    );
  }
  const ratios = news.map((n, i) => n / olds[i]!);
  process.stdout.write(
    `${JSON.stringify({
      rounds,
      seconds: duration,
      connections,
      load_min: Math.min(...loads),
      load_max: Math.max(...loads),
      old_cpu_us_per_request_median: Math.round(median(olds)),
      new_cpu_us_per_request_median: Math.round(median(news)),
      bare_cpu_us_per_request_median: Math.round(median(bares)),
      new_over_old_median: Math.round(median(ratios) * 1000) / 1000,
      new_over_old_geomean:
        Math.round(Math.exp(ratios.reduce((sum, r) => sum + Math.log(r), 0) / ratios.length) * 1000) / 1000,
      new_lower_rounds: ratios.filter((r) => r < 1).length,
    })}\n`,
  );
} finally {
  for (const { child } of [...started, upstream]) await stopChild(child);
  rmSync(dir, { recursive: true, force: true });
}
