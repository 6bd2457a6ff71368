/**
 * The disk's share of a commit, without a vault: a commit of the embedded vault is durable after two
 * sequential durable writes, its journal record appended at the journal's end and then the
 * acknowledged mark's 48-byte slot (core/backends/embedded/journal.ts, acknowledged.ts). This times
 * that pair alone, in the calling process, on two files opened `r+durable` through core's StorageFs
 * and written with core's writeFully, as the journal and the mark are. A request that waits for its
 * audit entry to be durable cannot be answered sooner than one such pair after it arrives.
 *
 * The files live in a fresh folder under `parent` (by default the temp folder, where the bench
 * servers keep their vaults) and are removed afterwards. With SVC_BENCH_VOLATILE_FS=1 they are
 * opened on the same syncless layer as the bench servers' vaults (benchStorageFs).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SLOTS, SLOT_BYTES } from '../../core/backends/embedded/acknowledged.ts';
import { writeFileAtomically, writeFully } from '../../core/backends/embedded/durable-fs.ts';
import { JOURNAL_HEADER_BYTES } from '../../core/backends/embedded/journal.ts';
import { nodeStorageFs } from '../../core/backends/embedded/storage-fs.ts';
import type { StorageFs } from '../../core/backends/embedded/storage-fs.ts';
import { quantile } from './soak-stats.ts';
import { benchStorageFs } from './volatile-fs.ts';

/**
 * The journal record one proxied request writes at one connection: its `use` entry, with the
 * previous request's invocation entry riding along (core/tokens/read-audit.ts), sealed. Read off
 * the proxy bench vault's journal; the size decides whether an append spans one disk block or two.
 */
export const PROXY_RECORD_BYTES = 1450;

/** Untimed pairs first: the files' first blocks, the I/O pool's threads. */
const WARM_UP_ROUNDS = 20;

export interface DurableWritePairOptions {
  /** Timed pairs, unless `maxSeconds` runs out first. */
  readonly rounds: number;
  readonly maxSeconds: number;
  /** Bytes of the journal record. Default PROXY_RECORD_BYTES. */
  readonly recordBytes?: number;
  /** Default the temp folder. */
  readonly parent?: string;
  /** Default the bench servers' layer: benchStorageFs, else nodeStorageFs. */
  readonly fs?: StorageFs;
}

export interface DurableWritePairTimes {
  /** Pairs timed. */
  readonly rounds: number;
  readonly p50Us: number;
  readonly p90Us: number;
  readonly p99Us: number;
  readonly recordBytes: number;
  readonly markBytes: number;
}

/** The journal and the mark of a vault, without the vault: files created as the vault creates them. */
export interface DurablePair {
  /** Appends `record` at the journal's end and makes it durable, then writes the mark's next slot. */
  readonly write: (record: Uint8Array) => Promise<void>;
  readonly close: () => Promise<void>;
}

/** Opens a journal and a mark in a fresh folder under `parent`, removed again by `close`. */
export async function openDurablePair(parent: string = tmpdir(), fs?: StorageFs): Promise<DurablePair> {
  const layer = fs ?? benchStorageFs().fs ?? nodeStorageFs;
  const dir = await mkdtemp(join(parent, 'svc-bench-durable-pair-'));
  // Created as the vault creates them (atomically, synced): a journal holding only its header,
  // a mark of two slots. Their contents do not matter to the disk.
  const journalPath = join(dir, 'vault.journal');
  const markPath = join(dir, 'vault.ack');
  await writeFileAtomically(
    journalPath,
    (h) => writeFully(h, new Uint8Array(JOURNAL_HEADER_BYTES), 0),
    0o600,
    layer,
  );
  await writeFileAtomically(
    markPath,
    (h) => writeFully(h, new Uint8Array(SLOT_BYTES * SLOTS), 0),
    0o600,
    layer,
  );
  const journal = await layer.open(journalPath, 'r+durable');
  const mark = await layer.open(markPath, 'r+durable');
  const slot = new Uint8Array(SLOT_BYTES);
  let size = JOURNAL_HEADER_BYTES;
  let next = 0;
  return {
    // The journal's and the mark's own steps: write, then a datasync that `r+durable` makes free.
    async write(record) {
      await writeFully(journal, record, size);
      await journal.datasync();
      size += record.length;
      // The mark alternates between its two slots.
      await writeFully(mark, slot, next * SLOT_BYTES);
      await mark.datasync();
      next = (next + 1) % SLOTS;
    },
    async close() {
      await mark.close();
      await journal.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Times `rounds` pairs (journal record append, then mark slot) and returns their quantiles in µs. */
export async function timeDurableWritePairs(
  options: DurableWritePairOptions,
): Promise<DurableWritePairTimes> {
  const recordBytes = options.recordBytes ?? PROXY_RECORD_BYTES;
  const pair = await openDurablePair(options.parent, options.fs);
  try {
    const record = randomBytes(recordBytes);
    for (let i = 0; i < WARM_UP_ROUNDS; i++) await pair.write(record);
    const times: number[] = [];
    const until = performance.now() + options.maxSeconds * 1000;
    // At least one pair, however short the time.
    while (times.length < options.rounds && (times.length === 0 || performance.now() < until)) {
      const start = process.hrtime.bigint();
      await pair.write(record);
      times.push(Number(process.hrtime.bigint() - start) / 1000);
    }
    times.sort((a, b) => a - b);
    const us = (q: number) => Math.round(quantile(times, q));
    return {
      rounds: times.length,
      p50Us: us(0.5),
      p90Us: us(0.9),
      p99Us: us(0.99),
      recordBytes,
      markBytes: SLOT_BYTES,
    };
  } finally {
    await pair.close();
  }
}
