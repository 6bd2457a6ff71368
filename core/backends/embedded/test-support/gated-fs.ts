import { basename } from 'node:path';
import { unsyncedFs } from '../../../test-support/unsynced-fs.ts';
import type { StorageFs, StorageHandle } from '../storage-fs.ts';

interface Held {
  readonly file: string;
  release(): void;
}

/**
 * The tests' file layer without syncs whose writes to chosen files (by name: `vault.journal`,
 * `vault.ack`) wait, once `hold` is on, until the test lets each through: a test decides the
 * order in which durable writes complete, without timing.
 */
export class GatedFs {
  private readonly gated = new Set<string>();
  private held: Held[] = [];
  private readonly waiters: Array<() => void> = [];
  readonly fs: StorageFs;

  constructor(base: StorageFs = unsyncedFs) {
    this.fs = {
      ...base,
      open: async (path, flags, mode) => this.wrap(await base.open(path, flags, mode), basename(path)),
    };
  }

  /** From now on, writes to `file` wait for `release`. */
  hold(...files: string[]): void {
    for (const f of files) this.gated.add(f);
  }

  /** Writes to `file` waiting now. */
  waiting(file: string): number {
    return this.held.filter((h) => h.file === file).length;
  }

  /** Resolves once `count` writes to `file` wait (turns of the event loop pass meanwhile). */
  async until(file: string, count: number): Promise<void> {
    while (this.waiting(file) < count) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** Lets the oldest waiting write to `file` through. */
  release(file: string): void {
    const i = this.held.findIndex((h) => h.file === file);
    if (i < 0) throw new Error(`no write to ${file} is waiting`);
    const [h] = this.held.splice(i, 1);
    h!.release();
  }

  private wrap(handle: StorageHandle, file: string): StorageHandle {
    return {
      ...handle,
      write: async (b, o, l, p) => {
        if (this.gated.has(file)) {
          await new Promise<void>((release) => {
            this.held.push({ file, release });
            for (const wake of this.waiters.splice(0)) wake();
          });
        }
        return handle.write(b, o, l, p);
      },
    };
  }
}
