import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JOURNAL_HEADER_BYTES } from '../../core/backends/embedded/journal.ts';
import type { OpenFlags, StorageFs } from '../../core/backends/embedded/storage-fs.ts';
import { unsyncedFs } from '../../core/test-support/unsynced-fs.ts';
import { PROXY_RECORD_BYTES, timeDurableWritePairs } from './durable-write-pair.ts';

interface Write {
  readonly file: string;
  readonly length: number;
  readonly position: number;
}

/** The syncless layer, noting how each file was opened and every write made through an opened handle. */
function recording(): { fs: StorageFs; opened: Array<[string, OpenFlags]>; writes: Write[] } {
  const opened: Array<[string, OpenFlags]> = [];
  const writes: Write[] = [];
  const fs: StorageFs = {
    ...unsyncedFs,
    open: async (path, flags, mode) => {
      const handle = await unsyncedFs.open(path, flags, mode);
      opened.push([basename(path), flags]);
      if (flags !== 'r+durable') return handle;
      return {
        ...handle,
        write: (buffer, offset, length, position) => {
          writes.push({ file: basename(path), length, position });
          return handle.write(buffer, offset, length, position);
        },
      };
    },
  };
  return { fs, opened, writes };
}

describe('timeDurableWritePairs', () => {
  let parent: string;
  beforeEach(async () => {
    parent = await mkdtemp(join(tmpdir(), 'svc-durable-pair-test-'));
  });
  afterEach(async () => {
    await rm(parent, { recursive: true, force: true });
  });

  it('appends a record to one file, then writes a mark slot, alternating slots, and reports the quantiles', async () => {
    const { fs, opened, writes } = recording();
    const times = await timeDurableWritePairs({ rounds: 30, maxSeconds: 60, parent, fs });
    expect(times.rounds).toBe(30);
    expect(times.recordBytes).toBe(PROXY_RECORD_BYTES);
    expect(times.markBytes).toBe(48);
    expect(times.p50Us).toBeGreaterThan(0);
    expect(times.p50Us).toBeLessThanOrEqual(times.p90Us);
    expect(times.p90Us).toBeLessThanOrEqual(times.p99Us);
    expect(opened.filter(([, flags]) => flags === 'r+durable').map(([file]) => file)).toEqual([
      'vault.journal',
      'vault.ack',
    ]);
    // The warm-up pairs and the timed ones, each a record at the journal's end, then a mark slot.
    expect(writes.length % 2).toBe(0);
    writes.forEach((w, i) => {
      const pair = Math.floor(i / 2);
      if (i % 2 === 0) {
        expect(w).toEqual({
          file: 'vault.journal',
          length: PROXY_RECORD_BYTES,
          position: JOURNAL_HEADER_BYTES + pair * PROXY_RECORD_BYTES,
        });
      } else {
        expect(w).toEqual({ file: 'vault.ack', length: 48, position: (pair % 2) * 48 });
      }
    });
    // Its folder is gone.
    expect(await readdir(parent)).toEqual([]);
  });

  it('stops when the time runs out, after at least one pair', async () => {
    const times = await timeDurableWritePairs({
      rounds: 1_000_000,
      maxSeconds: 0,
      recordBytes: 100,
      parent,
      fs: unsyncedFs,
    });
    expect(times.rounds).toBe(1);
    expect(times.recordBytes).toBe(100);
    expect(times.p50Us).toBe(times.p99Us);
  });
});
