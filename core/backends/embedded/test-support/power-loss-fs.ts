import { dirname } from 'node:path';
import type { OpenFlags, StorageFileStat, StorageFs, StorageHandle } from '../storage-fs.ts';

/**
 * An in-memory file system that simulates power loss, in the manner of SQLite's crash-test VFS:
 * every file keeps the bytes it had at its last fsync plus the writes since, and every directory
 * keeps the names it had at its last directory fsync plus the creates, renames and unlinks since.
 * `crash()` (or a crash scheduled after a number of operations) keeps what was synced and, of what
 * was not, only a random prefix of the pending operations in order, the last one possibly torn —
 * or, in strict mode, nothing unsynced at all. The machine that crashed answers every later call
 * with an error; `reboot()` gives a fresh machine holding what survived.
 */

type Rng = () => number;

/** Deterministic PRNG (mulberry32), so a failing seed can be replayed. */
export function seededRandom(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type DataOp = { kind: 'write'; position: number; bytes: Buffer } | { kind: 'truncate'; length: number };

type NameOp =
  { kind: 'set'; dir: string; path: string; inode: number } | { kind: 'remove'; dir: string; path: string };

interface Inode {
  durable: Buffer;
  pending: DataOp[];
}

export interface CrashImage {
  readonly inodes: ReadonlyMap<number, Buffer>;
  readonly names: ReadonlyMap<string, number>;
  /** The next inode number, so files made after the reboot never reuse a dropped file's number. */
  readonly nextInode: number;
}

/**
 * `base` with `ops` applied in order (a truncate cuts, a write past the end zero-fills the gap).
 * One buffer grown by doubling and written in place, not a copy of the file per operation: a
 * snapshot writes a vault file in many chunks before its fsync, and every read, stat and sync
 * between them asks for the current bytes. `base` is never modified.
 */
function applyData(base: Buffer, ops: readonly DataOp[]): Buffer {
  if (ops.length === 0) return base;
  let out = Buffer.from(base);
  let length = out.length;
  const reserve = (needed: number) => {
    if (needed <= out.length) return;
    const grown = Buffer.alloc(Math.max(needed, out.length * 2));
    out.copy(grown, 0, 0, length);
    out = grown;
  };
  for (const op of ops) {
    const end = op.kind === 'truncate' ? op.length : op.position + op.bytes.length;
    if (end > length) {
      reserve(end);
      // Bytes past the file's end may hold what an earlier truncate cut off: a file reads zeros there.
      out.fill(0, length, op.kind === 'truncate' ? end : op.position);
    }
    if (op.kind === 'truncate') length = op.length;
    else {
      op.bytes.copy(out, op.position);
      length = Math.max(length, end);
    }
  }
  return out.subarray(0, length);
}

function errno(code: string, message: string): NodeJS.ErrnoException {
  const err = new Error(`${code}: ${message}`) as NodeJS.ErrnoException;
  err.code = code;
  return err;
}

/** Decides, per operation, whether it fails (with an errno code) instead of happening. */
export type FaultInjector = (op: 'write' | 'sync' | 'create', path: string) => string | null;

export class PowerLossFs implements StorageFs {
  private readonly inodes = new Map<number, Inode>();
  private durableNames = new Map<string, number>();
  private liveNames = new Map<string, number>();
  private pendingNames: NameOp[] = [];
  private nextInode = 1;
  private operations = 0;
  private crashAt = Infinity;
  private image: CrashImage | null = null;
  private fault: FaultInjector | null = null;

  constructor(
    private readonly rng: Rng,
    /** Strict: nothing unsynced survives. Otherwise a random prefix of it does. */
    private readonly strict = false,
    from?: CrashImage,
  ) {
    if (from) {
      for (const [id, bytes] of from.inodes) {
        this.inodes.set(id, { durable: Buffer.from(bytes), pending: [] });
        this.nextInode = Math.max(this.nextInode, id + 1);
      }
      this.nextInode = Math.max(this.nextInode, from.nextInode);
      this.durableNames = new Map(from.names);
      this.liveNames = new Map(from.names);
    }
  }

  /** Loses power just before the `count`-th operation from now. */
  crashAfter(count: number): void {
    this.crashAt = this.operations + count;
  }

  injectFault(fault: FaultInjector | null): void {
    this.fault = fault;
  }

  get crashed(): boolean {
    return this.image !== null;
  }

  /** Loses power now. */
  crash(): CrashImage {
    if (this.image) return this.image;
    // What survives of each file is drawn first, for every file in order (the draws a seed
    // replays), and applied only to the files a surviving name reaches: a deleted journal segment
    // or vault file can never be opened after the reboot, and copying every file the run ever
    // made at each reboot grew with the number of trials.
    const survivors: Array<[number, Inode, DataOp[]]> = [];
    for (const [id, inode] of this.inodes) {
      let kept: DataOp[] = [];
      if (!this.strict && inode.pending.length > 0) {
        const keep = Math.floor(this.rng() * (inode.pending.length + 1));
        kept = inode.pending.slice(0, keep);
        const torn = inode.pending[keep];
        if (torn?.kind === 'write' && this.rng() < 0.5) {
          const part = Math.floor(this.rng() * torn.bytes.length);
          kept.push({ kind: 'write', position: torn.position, bytes: torn.bytes.subarray(0, part) });
        }
      }
      survivors.push([id, inode, kept]);
    }
    const names = new Map(this.durableNames);
    const keepNames = this.strict ? 0 : Math.floor(this.rng() * (this.pendingNames.length + 1));
    for (let i = 0; i < keepNames; i++) applyName(names, this.pendingNames[i]!);
    const named = new Set(names.values());
    const inodes = new Map<number, Buffer>();
    for (const [id, inode, kept] of survivors) {
      if (named.has(id)) inodes.set(id, applyData(inode.durable, kept));
    }
    this.image = { inodes, names, nextInode: this.nextInode };
    return this.image;
  }

  /** A new machine holding what survived the crash. */
  reboot(rng: Rng, strict = this.strict): PowerLossFs {
    return new PowerLossFs(rng, strict, this.crash());
  }

  /** What a file holds now (for assertions), or null. */
  peek(path: string): Buffer | null {
    const id = this.liveNames.get(path);
    return id === undefined ? null : this.current(this.inodes.get(id)!);
  }

  // StorageFs

  /**
   * `r+durable` is simulated as `r+`: its writers still call `datasync`, which here makes the write
   * durable in a step of its own, so a crash can still land between a write and its durability.
   */
  async open(path: string, flags: OpenFlags): Promise<StorageHandle> {
    await this.step(flags === 'wx' ? 'create' : null, path);
    let id = this.liveNames.get(path);
    if (flags === 'wx') {
      if (id !== undefined) throw errno('EEXIST', path);
      id = this.nextInode++;
      this.inodes.set(id, { durable: Buffer.alloc(0), pending: [] });
      this.nameOp({ kind: 'set', dir: dirname(path), path, inode: id });
    } else if (id === undefined) {
      throw errno('ENOENT', path);
    }
    return this.handle(id, path, flags !== 'r');
  }

  async rename(from: string, to: string): Promise<void> {
    await this.step(null, to);
    const id = this.liveNames.get(from);
    if (id === undefined) throw errno('ENOENT', from);
    this.nameOp({ kind: 'remove', dir: dirname(from), path: from });
    this.nameOp({ kind: 'set', dir: dirname(to), path: to, inode: id });
  }

  async unlink(path: string): Promise<void> {
    await this.step(null, path);
    if (!this.liveNames.has(path)) throw errno('ENOENT', path);
    this.nameOp({ kind: 'remove', dir: dirname(path), path });
  }

  async link(existing: string, to: string): Promise<void> {
    await this.step('create', to);
    const id = this.liveNames.get(existing);
    if (id === undefined) throw errno('ENOENT', existing);
    if (this.liveNames.has(to)) throw errno('EEXIST', to);
    this.nameOp({ kind: 'set', dir: dirname(to), path: to, inode: id });
  }

  async stat(path: string): Promise<StorageFileStat> {
    await this.step(null, path);
    const id = this.liveNames.get(path);
    if (id === undefined) throw errno('ENOENT', path);
    return { size: this.current(this.inodes.get(id)!).length, ino: id };
  }

  async readFile(path: string): Promise<Buffer> {
    await this.step(null, path);
    const id = this.liveNames.get(path);
    if (id === undefined) throw errno('ENOENT', path);
    return Buffer.from(this.current(this.inodes.get(id)!));
  }

  async mkdir(): Promise<void> {
    await this.step(null, '');
  }

  async freeBytes(): Promise<number> {
    await this.step(null, '');
    return Number.MAX_SAFE_INTEGER;
  }

  async syncDirectory(dir: string): Promise<void> {
    await this.step('sync', dir);
    const rest: NameOp[] = [];
    for (const op of this.pendingNames) {
      if (op.dir === dir) applyName(this.durableNames, op);
      else rest.push(op);
    }
    this.pendingNames = rest;
  }

  // internals

  private current(inode: Inode): Buffer {
    return applyData(inode.durable, inode.pending);
  }

  private nameOp(op: NameOp): void {
    applyName(this.liveNames, op);
    this.pendingNames.push(op);
  }

  /** Every operation yields (so concurrent callers interleave), counts, and may crash or fail. */
  private async step(kind: 'write' | 'sync' | 'create' | null, path: string): Promise<void> {
    if (this.image) throw errno('EIO', 'the machine lost power');
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (this.image) throw errno('EIO', 'the machine lost power');
    if (++this.operations >= this.crashAt) {
      this.crash();
      throw errno('EIO', 'the machine lost power');
    }
    const code = kind && this.fault ? this.fault(kind, path) : null;
    if (code) throw errno(code, path);
  }

  private handle(id: number, path: string, writable: boolean): StorageHandle {
    const inode = this.inodes.get(id)!;
    let closed = false;
    const live = async (kind: 'write' | 'sync' | null) => {
      await this.step(kind, path);
      if (closed) throw errno('EBADF', path);
    };
    const sync = async () => {
      await live('sync');
      inode.durable = this.current(inode);
      inode.pending = [];
    };
    return {
      read: async (buffer, offset, length, position) => {
        await live(null);
        const data = this.current(inode);
        const slice = data.subarray(position, Math.min(data.length, position + length));
        buffer.set(slice, offset);
        return { bytesRead: slice.length };
      },
      write: async (buffer, offset, length, position) => {
        await live('write');
        if (!writable) throw errno('EBADF', path);
        inode.pending.push({
          kind: 'write',
          position,
          bytes: Buffer.from(buffer.subarray(offset, offset + length)),
        });
        return { bytesWritten: length };
      },
      readFile: async () => {
        await live(null);
        return Buffer.from(this.current(inode));
      },
      truncate: async (length) => {
        await live('write');
        inode.pending.push({ kind: 'truncate', length });
      },
      sync,
      datasync: sync,
      stat: async () => {
        await live(null);
        return { size: this.current(inode).length, ino: id };
      },
      close: async () => {
        closed = true;
        await Promise.resolve();
      },
    };
  }
}

function applyName(names: Map<string, number>, op: NameOp): void {
  if (op.kind === 'set') names.set(op.path, op.inode);
  else names.delete(op.path);
}
