import { mkdir, readFile, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { VaultError } from '../../core/errors/catalogue.ts';
import { writeFileAtomically, writeFully } from '../../core/backends/embedded/durable-fs.ts';

/**
 * The session of `svc auth login`: a member signed in to a server with e-mail and password. The
 * token is a credential, so the file is the user's alone (0600, in the private home folder) and
 * its token is never printed; `svc auth logout` ends the session on the server and deletes it.
 */
export interface StoredSession {
  /** The server it was issued by, as given to `--server` (without a trailing slash). */
  readonly server: string;
  readonly email: string;
  readonly token: string;
  readonly expiresAt: string;
}

/** `<home>/session.json`. */
export function sessionFilePath(home: string): string {
  return path.join(home, 'session.json');
}

/** A server URL as sessions are matched by: no trailing slash. */
export function serverKey(url: string): string {
  return url.replace(/\/+$/, '');
}

function isStoredSession(value: unknown): value is StoredSession {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return ['server', 'email', 'token', 'expiresAt'].every((field) => typeof record[field] === 'string');
}

/**
 * The stored session, or null when nobody signed in. A file others may read is refused (the token
 * in it may already be known to them) unless `exposedToo`: signing out still ends it.
 */
export async function readSession(home: string, exposedToo = false): Promise<StoredSession | null> {
  const file = sessionFilePath(home);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  if (!exposedToo && process.platform !== 'win32' && ((await stat(file)).mode & 0o077) !== 0) {
    throw new VaultError(
      'CONFIG_INVALID',
      `${file} is readable by other users; run 'svc auth logout' and sign in again`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = null;
  }
  if (!isStoredSession(parsed)) {
    throw new VaultError('CONFIG_INVALID', `${file} is not a session file; delete it and sign in again`);
  }
  return parsed;
}

/** Writes the session (mode 0600, atomically), creating the home folder (0700) if needed. */
export async function writeSession(home: string, session: StoredSession): Promise<void> {
  await mkdir(home, { recursive: true, mode: 0o700 });
  const bytes = Buffer.from(`${JSON.stringify(session)}\n`, 'utf8');
  await writeFileAtomically(sessionFilePath(home), (handle) => writeFully(handle, bytes, 0), 0o600);
}

/** Deletes the session file (nothing when there is none). */
export async function removeSession(home: string): Promise<void> {
  await unlink(sessionFilePath(home)).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
}
