/**
 * `npm run bench`: every benchmark, JSON lines on stdout. `--quick` uses small sizes (a smoke run);
 * `--only storage` (or `commit`, `http`, `reactors`, `proxy`, `expressions`, `crypto`, `scale`,
 * `stalls`, `cli`, `postgres`, `console-import`) picks one suite.
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
import { runStallsBench } from './stalls.ts';
import { runStorageBench } from './storage.ts';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const onlyIndex = args.indexOf('--only');
const only = onlyIndex >= 0 ? args[onlyIndex + 1] : undefined;

const suites: Record<string, () => Promise<void>> = {
  storage: () =>
    runStorageBench(
      quick ? { sizes: [10_000], commitSeconds: 1 } : { sizes: [100_000, 1_000_000], commitSeconds: 3 },
    ),
  commit: () => runCommitBench({ operations: quick ? 300 : 3000 }),
  http: () => runHttpBench({ seconds: quick ? 2 : 8 }),
  reactors: () => runReactorsBench({ seconds: quick ? 2 : 8 }),
  proxy: () => runProxyBench({ seconds: quick ? 2 : 8 }),
  expressions: () => runExpressionsBench({ rounds: quick ? 2 : 5 }),
  crypto: () => runCryptoBench({ rounds: quick ? 10 : 50 }),
  scale: () =>
    runScaleBench(quick ? { sizes: [10_000], seconds: 2 } : { sizes: [100_000, 1_000_000], seconds: 8 }),
  stalls: () => runStallsBench(quick ? { tokens: 10_000, seconds: 3 } : { tokens: 100_000, seconds: 8 }),
  cli: () => runCliBench({ runs: quick ? 5 : 20 }),
  postgres: () => runPostgresBench({ seconds: quick ? 2 : 8 }),
  'console-import': () => runConsoleImportBench({ lines: quick ? 2_000 : 20_000 }),
};

for (const [name, run] of Object.entries(suites)) {
  if (only && only !== name) continue;
  await run();
}
