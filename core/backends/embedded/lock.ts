import { randomBytes, createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { VaultError } from '../../errors/catalogue.ts';
import { tempPathBeside, writeFileAtomically, writeFully } from './durable-fs.ts';
import { errnoOf, nodeStorageFs } from './storage-fs.ts';
import type { StorageFs } from './storage-fs.ts';

/** Who holds a vault's lock, as its lock file records it. */
export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  readonly startedAt: string;
  /** Set when a server holds the vault. */
  readonly url?: string;
}

/**
 * One writer per vault: an exclusive lock file naming its holder (pid, host, start time and, when a
 * server holds it, its URL), so a second opener gets an error that says who to stop or talk to.
 *
 * Taking the lock: the holder's record is written to a temp file and hard-linked to the lock path,
 * which creates it atomically with its content (EEXIST when it exists).
 *
 * Taking over a stale lock (its holder on this host is gone) must happen at most once per stale
 * file, or two racing starters could each remove what the other just created. So a starter first
 * takes a claim on that exact stale file — a lock file of its own, named after the hash of the
 * stale file's bytes — then re-reads the lock: only if it still holds those exact bytes is it
 * removed and replaced. Whoever loses the claim, or finds the lock changed, reports it as held.
 * A claim left by a starter that crashed mid-takeover is itself stale and taken over the same way.
 */
export interface VaultLock {
  readonly holder: LockHolder;
  setUrl(url: string | undefined): Promise<void>;
  release(): Promise<void>;
}

/** Claims of claims: each level needs another crash in the middle of a takeover. */
const MAX_TAKEOVER_DEPTH = 3;

function parseHolder(text: string): LockHolder {
  try {
    const parsed = JSON.parse(text) as Partial<LockHolder>;
    return {
      pid: Number(parsed.pid),
      host: String(parsed.host ?? 'unknown'),
      startedAt: String(parsed.startedAt ?? 'unknown'),
      ...(parsed.url ? { url: String(parsed.url) } : {}),
    };
  } catch {
    // A lock file that is not JSON still means "someone had it"; it is never taken over.
    return { pid: 0, host: 'unknown', startedAt: 'unknown' };
  }
}

async function readBytes(fs: StorageFs, path: string): Promise<Buffer | null> {
  try {
    return await fs.readFile(path);
  } catch (err) {
    if (errnoOf(err) === 'ENOENT') return null;
    throw err;
  }
}

export async function readLockHolder(
  lockPath: string,
  fs: StorageFs = nodeStorageFs,
): Promise<LockHolder | null> {
  const bytes = await readBytes(fs, lockPath);
  return bytes === null ? null : parseHolder(bytes.toString('utf8'));
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errnoOf(err) === 'EPERM';
  }
}

/**
 * This machine's boot id (Linux), or null. A lock written during an earlier boot is stale whatever
 * its pid: after a power loss that pid may well belong to an unrelated process now.
 */
const BOOT_ID: string | null = (() => {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
  } catch {
    return null;
  }
})();

function bootOf(text: string): string | null {
  try {
    const parsed = JSON.parse(text) as { boot?: unknown };
    return typeof parsed.boot === 'string' ? parsed.boot : null;
  } catch {
    return null;
  }
}

/** A holder on this host whose process is gone (or whose boot is over) crashed: its lock is stale. */
function isStale(holder: LockHolder, text: string): boolean {
  if (holder.host !== hostname()) return false;
  const boot = bootOf(text);
  if (BOOT_ID !== null && boot !== null && boot !== BOOT_ID) return true;
  return !isAlive(holder.pid);
}

/** True when `holder` is a process running on this host: its lock is live, not left by a crash. */
export function isRunningHere(holder: LockHolder): boolean {
  return holder.host === hostname() && isAlive(holder.pid);
}

export function describeHolder(holder: Pick<LockHolder, 'pid' | 'host' | 'url'>, since: string): string {
  const where = holder.url ? `, serving ${holder.url}` : '';
  return `process ${holder.pid} on ${holder.host} since ${since}${where}`;
}

/** The record written to the lock file; the nonce makes every lock file's bytes unique. */
function lockRecord(holder: LockHolder, nonce: string): Buffer {
  return Buffer.from(JSON.stringify({ ...holder, nonce, ...(BOOT_ID ? { boot: BOOT_ID } : {}) }), 'utf8');
}

/** File systems without hard links (FAT, some network shares) answer a link with one of these. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV']);

/** Creates `path` holding `bytes` if it does not exist; false when it does. */
async function createExclusive(fs: StorageFs, path: string, bytes: Buffer): Promise<boolean> {
  const temp = tempPathBeside(path);
  const handle = await fs.open(temp, 'wx', 0o600);
  try {
    try {
      await writeFully(handle, bytes, 0);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.link(temp, path);
    return true;
  } catch (err) {
    if (errnoOf(err) === 'EEXIST') return false;
    if (NO_HARD_LINKS.has(errnoOf(err) ?? '')) return createInPlace(fs, path, bytes);
    throw err;
  } finally {
    await fs.unlink(temp).catch(() => undefined);
  }
}

/**
 * Without hard links: an exclusive create, then the content. A reader may briefly see the file
 * empty; an empty or unparsable lock is never taken over, so that only delays a racing starter.
 */
async function createInPlace(fs: StorageFs, path: string, bytes: Buffer): Promise<boolean> {
  let handle;
  try {
    handle = await fs.open(path, 'wx', 0o600);
  } catch (err) {
    if (errnoOf(err) === 'EEXIST') return false;
    throw err;
  }
  try {
    await writeFully(handle, bytes, 0);
    await handle.sync();
  } finally {
    await handle.close();
  }
  return true;
}

type Attempt = { readonly held: true } | { readonly held: false; readonly holder: LockHolder | null };

async function takeExclusive(fs: StorageFs, path: string, bytes: Buffer, depth: number): Promise<Attempt> {
  // Two rounds: the file may vanish (its holder released it) between the create and the read.
  for (let round = 0; round < 2; round++) {
    if (await createExclusive(fs, path, bytes)) return { held: true };
    const current = await readBytes(fs, path);
    if (current === null) continue;
    const text = current.toString('utf8');
    const holder = parseHolder(text);
    if (!isStale(holder, text) || depth >= MAX_TAKEOVER_DEPTH) return { held: false, holder };
    const claimPath = `${path}.takeover-${createHash('sha256').update(current).digest('hex').slice(0, 32)}`;
    const claim = await takeExclusive(fs, claimPath, bytes, depth + 1);
    if (!claim.held) return { held: false, holder };
    try {
      const again = await readBytes(fs, path);
      // Only the claim holder may remove these exact bytes, so what we re-read is still there.
      if (again !== null && !again.equals(current))
        return { held: false, holder: parseHolder(again.toString('utf8')) };
      if (again !== null) await fs.unlink(path);
      if (await createExclusive(fs, path, bytes)) return { held: true };
      return { held: false, holder: await readLockHolder(path, fs) };
    } finally {
      await fs.unlink(claimPath).catch(() => undefined);
    }
  }
  return { held: false, holder: await readLockHolder(path, fs) };
}

export async function acquireLock(
  lockPath: string,
  now: Date,
  fs: StorageFs = nodeStorageFs,
): Promise<VaultLock> {
  let holder: LockHolder = { pid: process.pid, host: hostname(), startedAt: now.toISOString() };
  const nonce = randomBytes(12).toString('hex');
  const attempt = await takeExclusive(fs, lockPath, lockRecord(holder, nonce), 0);
  if (!attempt.held) {
    const current = attempt.holder;
    throw new VaultError(
      'VAULT_LOCKED',
      current
        ? `The vault is held by ${describeHolder(current, current.startedAt)}. Stop that process${current.url ? ' or use its API' : ''} first.`
        : 'The vault is held by another process.',
    );
  }
  let released = false;
  return {
    get holder() {
      return holder;
    },
    async setUrl(url) {
      // After release the file may already belong to another process: never write it again.
      if (released) throw new VaultError('VAULT_CLOSED', 'The vault lock was released.');
      const { url: _old, ...rest } = holder;
      const next: LockHolder = url ? { ...rest, url } : rest;
      await writeFileAtomically(lockPath, (h) => writeFully(h, lockRecord(next, nonce), 0), 0o600, fs);
      holder = next;
    },
    async release() {
      if (released) return;
      released = true;
      const current = await readLockHolder(lockPath, fs);
      if (current && current.pid === holder.pid && current.host === holder.host) {
        await fs.unlink(lockPath).catch(() => undefined);
      }
    },
  };
}
