import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createVault, openVault } from '../core/vault/index.ts';
import type { VaultHandle } from '../core/vault/types.ts';
import type { KeySource } from '../core/crypto/root-key.ts';
import { emit, withPeakRss } from './json-lines.ts';

const BENCH = 'storage';

/** A row about the size of a card token with its metadata (≈ 250 bytes). */
const VALUE = 'v1.1.' + randomBytes(180).toString('base64');

async function commitsPerSecond(vault: VaultHandle, writers: number, durationMs: number): Promise<number> {
  let commits = 0;
  const deadline = performance.now() + durationMs;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      for (let i = 0; performance.now() < deadline; i++) {
        await vault.transaction(async (trx) => {
          await trx
            .insertInto('vault_meta')
            .values({ key: `c-${writers}-${w}-${i}`, value: VALUE })
            .execute();
        });
        commits++;
      }
    }),
  );
  return commits / ((performance.now() - started) / 1000);
}

async function fill(vault: VaultHandle, rows: number): Promise<void> {
  const batch = 5_000;
  for (let done = 0; done < rows; done += batch) {
    const n = Math.min(batch, rows - done);
    await vault.transaction(async (trx) => {
      for (let i = 0; i < n; i += 500) {
        const values = Array.from({ length: Math.min(500, n - i) }, (_, j) => ({
          key: `row-${done + i + j}`,
          value: VALUE,
        }));
        await trx.insertInto('vault_meta').values(values).execute();
      }
    });
  }
}

export async function runStorageBench(options: { sizes: number[]; commitSeconds: number }): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-'));
  const key: KeySource = { kind: 'key', key: new Uint8Array(randomBytes(32)) };
  try {
    const path = join(dir, 'commits.svc');
    const vault = await createVault({ path, key });
    for (const writers of [1, 64]) {
      const rate = await commitsPerSecond(vault, writers, options.commitSeconds * 1000);
      emit({
        bench: BENCH,
        metric: 'commits_per_second',
        value: Math.round(rate),
        unit: 'commit/s',
        writers,
      });
    }
    await vault.close();

    for (const rows of options.sizes) {
      const sizedPath = join(dir, `rows-${rows}.svc`);
      const { peakRssMiB: fillRss } = await withPeakRss(async () => {
        const sized = await createVault({
          path: sizedPath,
          key,
          snapshotThresholdBytes: Number.MAX_SAFE_INTEGER,
        });
        await fill(sized, rows);
        const t0 = performance.now();
        await sized.compact();
        const snapshotMs = performance.now() - t0;
        const bytes = (await stat(sizedPath)).size;
        emit({
          bench: BENCH,
          metric: 'snapshot_ms',
          value: Math.round(snapshotMs),
          unit: 'ms',
          rows,
          file_mib: +(bytes / 2 ** 20).toFixed(1),
        });
        await sized.close();
      });
      emit({ bench: BENCH, metric: 'peak_rss_fill_and_snapshot', value: fillRss, unit: 'MiB', rows });
      const { peakRssMiB: openRss } = await withPeakRss(async () => {
        const t0 = performance.now();
        const reopened = await openVault({ path: sizedPath, key });
        emit({
          bench: BENCH,
          metric: 'open_ms',
          value: Math.round(performance.now() - t0),
          unit: 'ms',
          rows,
        });
        await reopened.close();
      });
      emit({ bench: BENCH, metric: 'peak_rss_open', value: openRss, unit: 'MiB', rows });
      await rm(sizedPath, { force: true });
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
