/**
 * Cold opens of one large vault, repeated without building it again:
 * `node --import tsx bench/open-times.ts <folder> [tokens] [opens]` (defaults 1,000,000 and 5).
 * The first run builds a vault of `tokens` tokens in `<folder>` through the scale bench's tokenize
 * path (bench/support/scale-tokens.ts) and keeps it there with a raw bench key beside it
 * (`bench.key`, mode 0600: a throwaway key for a throwaway vault); every run then opens it `opens`
 * times, each open in a new Node process, and prints one JSON line per open (`open_ms` and its
 * phases, the opener's resident memory). The scale bench opens once per build; this is for a spread.
 * Not part of `npm run bench`. Remove the folder when done.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServices } from '../core/services.ts';
import { createVault, openVault } from '../core/vault/index.ts';
import type { OpenTimes } from '../core/vault/types.ts';
import { emit } from './json-lines.ts';
import { tokenizeScaleTokens } from './support/scale-tokens.ts';

const BENCH = 'open-times';
const [folder, tokensArg, opensArg] = process.argv.slice(2);
if (folder === undefined) {
  process.stderr.write('usage: node --import tsx bench/open-times.ts <folder> [tokens] [opens]\n');
  process.exit(2);
}
const vaultPath = join(folder, 'vault.svc');
const keyPath = join(folder, 'bench.key');
const rawKey = async () => ({ kind: 'key' as const, key: new Uint8Array(await readFile(keyPath)) });

if (process.env['SVC_BENCH_OPEN_ONCE'] === '1') {
  // One cold open in this process (the parent below starts one process per open).
  const started = performance.now();
  let times: OpenTimes | undefined;
  const vault = await openVault({ path: vaultPath, key: await rawKey(), onOpenTimes: (t) => (times = t) });
  const openMs = performance.now() - started;
  const rssMiB = Math.round(process.memoryUsage.rss() / 2 ** 20);
  await vault.close({ snapshot: false });
  process.stdout.write(`${JSON.stringify({ openMs, times, rssMiB })}\n`);
} else {
  const tokens = Number(tokensArg ?? '1000000');
  const opens = Number(opensArg ?? '5');
  if (!existsSync(vaultPath)) {
    await mkdir(folder, { recursive: true });
    await writeFile(keyPath, randomBytes(32), { mode: 0o600 });
    const built = await createVault({
      path: vaultPath,
      key: await rawKey(),
      snapshotThresholdBytes: Number.MAX_SAFE_INTEGER,
    });
    const services = createServices(built);
    const { tenant } = await services.tenants.create({ name: 'bench', withApplication: false }, null);
    const started = performance.now();
    await tokenizeScaleTokens(built, services, { kind: 'operator', tenantId: tenant.id }, tokens);
    emit({
      bench: BENCH,
      metric: 'build_ms',
      value: Math.round(performance.now() - started),
      unit: 'ms',
      tokens,
    });
    await built.close();
  }
  const self = fileURLToPath(import.meta.url);
  for (let i = 0; i < opens; i += 1) {
    const out = execFileSync(process.execPath, [...process.execArgv, self, folder], {
      env: { ...process.env, SVC_BENCH_OPEN_ONCE: '1' },
      encoding: 'utf8',
    });
    const { openMs, times, rssMiB } = JSON.parse(out) as {
      openMs: number;
      times?: OpenTimes;
      rssMiB: number;
    };
    const phases = Object.fromEntries(
      Object.entries(times ?? {}).map(([phase, ms]) => [
        phase.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
        Math.round(ms),
      ]),
    );
    emit({
      bench: BENCH,
      metric: 'open_ms',
      value: Math.round(openMs),
      unit: 'ms',
      target_ms: 3000,
      rss_mib: rssMiB,
      ...phases,
    });
  }
}
