import { hostname } from 'node:os';
import { open, readFile, unlink } from 'node:fs/promises';
import { VaultError } from '../errors/catalogue.ts';
import type { LockHolder } from '../vault/types.ts';
import { writeFileAtomically } from './durable-fs.ts';

/**
 * One writer per vault: an exclusive lock file naming its holder (pid, host, start time and, when a
 * server holds it, its URL), so a second opener gets an error that says who to stop or talk to.
 */
export interface VaultLock {
  readonly holder: LockHolder;
  setUrl(url: string | undefined): Promise<void>;
  release(): Promise<void>;
}

export async function readLockHolder(lockPath: string): Promise<LockHolder | null> {
  let text: string;
  try {
    text = await readFile(lockPath, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    const parsed = JSON.parse(text) as Partial<LockHolder>;
    return {
      pid: Number(parsed.pid),
      host: String(parsed.host ?? 'unknown'),
      startedAt: String(parsed.startedAt ?? 'unknown'),
      ...(parsed.url ? { url: String(parsed.url) } : {}),
    };
  } catch {
    // A lock file cut short by a crash while it was being created still means "someone had it".
    return { pid: 0, host: 'unknown', startedAt: 'unknown' };
  }
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function describeHolder(holder: LockHolder): string {
  const where = holder.url ? `, serving ${holder.url}` : '';
  return `process ${holder.pid} on ${holder.host} since ${holder.startedAt}${where}`;
}

export async function acquireLock(lockPath: string, now: Date): Promise<VaultLock> {
  let holder: LockHolder = { pid: process.pid, host: hostname(), startedAt: now.toISOString() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(lockPath, 'wx', 0o600);
      try {
        await handle.writeFile(JSON.stringify(holder));
        await handle.sync();
      } finally {
        await handle.close();
      }
      return makeLock(
        lockPath,
        () => holder,
        (next) => (holder = next),
      );
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const current = await readLockHolder(lockPath);
      // A holder on this host whose process is gone crashed: its lock is stale and can be taken.
      if (current && current.host === hostname() && !isAlive(current.pid) && attempt === 0) {
        await unlink(lockPath).catch(() => undefined);
        continue;
      }
      throw new VaultError(
        'VAULT_LOCKED',
        current
          ? `The vault is held by ${describeHolder(current)}. Stop that process${current.url ? ' or use its API' : ''} first.`
          : 'The vault is held by another process.',
      );
    }
  }
  throw new VaultError('VAULT_LOCKED', 'The vault lock could not be taken.');
}

function makeLock(lockPath: string, get: () => LockHolder, set: (h: LockHolder) => void): VaultLock {
  let released = false;
  return {
    get holder() {
      return get();
    },
    async setUrl(url) {
      // After release the file may already belong to another process: never write it again.
      if (released) throw new VaultError('VAULT_CLOSED', 'The vault lock was released.');
      const { url: _old, ...rest } = get();
      const next: LockHolder = url ? { ...rest, url } : rest;
      await writeFileAtomically(lockPath, (h) => h.writeFile(JSON.stringify(next)));
      set(next);
    },
    async release() {
      if (released) return;
      released = true;
      const current = await readLockHolder(lockPath);
      if (current && current.pid === get().pid && current.host === get().host) {
        await unlink(lockPath).catch(() => undefined);
      }
    },
  };
}
