/**
 * A diagnostic, never a configuration: the tests' file layer without syncs (unsyncedFs, whose
 * journal is also opened without O_DSYNC), so a commit is acknowledged once its bytes are in the
 * page cache. A bench server opened with it (SVC_BENCH_VOLATILE_FS=1) measures how much of a figure
 * is the wait for durable writes.
 */
import type { StorageFs } from '../../core/backends/embedded/storage-fs.ts';
import { unsyncedFs } from '../../core/test-support/unsynced-fs.ts';

/** The file layer a bench server opens its vault with: `unsyncedFs` when SVC_BENCH_VOLATILE_FS=1. */
export function benchStorageFs(): { fs?: StorageFs } {
  return process.env.SVC_BENCH_VOLATILE_FS === '1' ? { fs: unsyncedFs } : {};
}
