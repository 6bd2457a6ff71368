/**
 * `npm run bench`: every benchmark, JSON lines on stdout. `--quick` is a smoke run (small sizes,
 * one-second windows; every suite still runs and prints its lines, target: the whole run in three
 * minutes on two cores); `--only storage` (or `commit`, `http`, `reactors`, `proxy`, `expressions`,
 * `crypto`, `scale`, `stalls`, `cli`, `postgres`, `console-import`, `soak`) picks one suite;
 * `--size N` sets the vault size of the scale and stalls suites; `--minutes N`, `--connections N`,
 * `--mix …` and `--reads-only` shape the soak (bench/support/soak-options.ts). The last line gives
 * the run's wall time.
 */
import { runCliBench } from './cli.ts';
import { runCommitBench } from './commit.ts';
import { runConsoleImportBench } from './console-import.ts';
import { runCryptoBench } from './crypto.ts';
import { runExpressionsBench } from './expressions.ts';
import { runHttpBench } from './http.ts';
import { runPostgresBench } from './postgres.ts';
import { runProxyBench } from './proxy.ts';
import { runReactorsBench } from './reactors.ts';
import { runScaleBench } from './scale.ts';
import { runSoakBench } from './soak.ts';
import { runStallsBench } from './stalls.ts';
import { runStorageBench } from './storage.ts';
import { emit } from './json-lines.ts';
import { useCompiledWorkers } from './support/compiled-workers.ts';
import { soakOptionsFrom } from './support/soak-options.ts';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const onlyIndex = args.indexOf('--only');
const only = onlyIndex >= 0 ? args[onlyIndex + 1] : undefined;
/** `--size N`: the vault size of the scale and stalls suites instead of their defaults. */
const sizeIndex = args.indexOf('--size');
const size = sizeIndex >= 0 ? Number(args[sizeIndex + 1]) : undefined;
if (size !== undefined && !(Number.isInteger(size) && size > 0))
  throw new Error('--size takes a token count');
const soakOptions = soakOptionsFrom(args, quick);

const suites: Record<string, () => Promise<void>> = {
  storage: () =>
    runStorageBench(
      quick ? { sizes: [10_000], commitSeconds: 1 } : { sizes: [100_000, 1_000_000], commitSeconds: 3 },
    ),
  commit: () => runCommitBench({ operations: quick ? 300 : 3000 }),
  http: () =>
    runHttpBench(
      quick
        ? { seconds: 1, batchSeconds: 2, ceilingRows: 2_000, floorConnections: [50] }
        : { seconds: 8, batchSeconds: 24, ceilingRows: 10_000, floorConnections: [1, 50] },
    ),
  reactors: () => runReactorsBench({ seconds: quick ? 1 : 8 }),
  proxy: () => runProxyBench({ seconds: quick ? 1 : 8, pairRounds: quick ? 200 : 2_000 }),
  expressions: () => runExpressionsBench({ rounds: quick ? 2 : 5 }),
  crypto: () => runCryptoBench({ rounds: quick ? 10 : 50 }),
  scale: () =>
    runScaleBench({
      sizes: size !== undefined ? [size] : quick ? [10_000] : [100_000, 1_000_000],
      seconds: quick ? 1 : 8,
    }),
  stalls: () => runStallsBench({ tokens: size ?? (quick ? 5_000 : 100_000), seconds: quick ? 2 : 8 }),
  cli: () => runCliBench({ runs: quick ? 3 : 20 }),
  postgres: () => runPostgresBench({ seconds: quick ? 1 : 8 }),
  'console-import': () => runConsoleImportBench({ lines: quick ? 2_000 : 20_000 }),
  soak: () => runSoakBench(soakOptions),
};

/** The smoke run's bound on two cores. */
const QUICK_TARGET_SECONDS = 180;

if (only !== undefined && !(only in suites)) {
  throw new Error(`no suite named ${only}; the suites are ${Object.keys(suites).join(', ')}`);
}
await useCompiledWorkers();
const started = performance.now();
for (const [name, run] of Object.entries(suites)) {
  if (only && only !== name) continue;
  await run();
}
const seconds = Math.round((performance.now() - started) / 100) / 10;
emit({
  bench: 'run',
  metric: 'wall_seconds',
  value: seconds,
  unit: 's',
  quick,
  suites: only ?? 'all',
  ...(quick && only === undefined
    ? { target_s: QUICK_TARGET_SECONDS, within_target: seconds <= QUICK_TARGET_SECONDS }
    : {}),
});
