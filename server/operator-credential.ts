import { createHash, randomBytes } from 'node:crypto';
import { readFile, unlink } from 'node:fs/promises';
import { constantTimeEqual } from '../core/crypto/constant-time.ts';
import { writeFileAtomically, writeFully } from '../core/backends/embedded/durable-fs.ts';
import { vaultPaths } from '../core/backends/embedded/paths.ts';
import { isLoopbackHost } from './http/loopback.ts';

/**
 * The operator credential: the right of whoever holds the vault's home folder to act as the operator
 * through the server that holds the vault (the CLI while `svc start` runs). The server makes a fresh
 * random one at every start, writes it beside the lock readable by its owner only (0600), and
 * removes it at a clean shutdown. It is accepted only from loopback addresses and compared in
 * constant time (see docs/security.md, "Operator credential").
 */
export interface OperatorCredential {
  /** True when `candidate` is this credential; the comparison takes the same time wherever they differ. */
  matches(candidate: string): boolean;
}

/** The request header carrying the operator credential. */
export const OPERATOR_HEADER = 'svc-operator-key';

/** 32 random bytes: as strong as the vault's own keys. */
const CREDENTIAL_BYTES = 32;

function digest(value: string): Uint8Array {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** A credential for `value`; digests make the comparison length-independent. */
export function operatorCredentialOf(value: string): OperatorCredential {
  const expected = digest(value);
  return { matches: (candidate) => constantTimeEqual(digest(candidate), expected) };
}

/** `<vault base name>.operator` beside `<vault base name>.lock`. */
export function operatorCredentialPath(vaultPath: string): string {
  return vaultPaths(vaultPath).lock.replace(/\.lock$/, '.operator');
}

/** True for a request from this machine (the socket's peer, never a forwarded header). */
export function fromLoopback(remoteAddress: string | undefined): boolean {
  return remoteAddress !== undefined && isLoopbackHost(remoteAddress);
}

export interface IssuedOperatorCredential {
  readonly credential: OperatorCredential;
  readonly path: string;
  /** Writes the file (mode 0600, atomically, over any file a killed server left behind). */
  write(): Promise<void>;
  /** Removes the file (idempotent); a later start writes a new one. */
  remove(): Promise<void>;
}

/**
 * A new credential for the vault at `vaultPath`. The server checks requests against it from the
 * moment it is built; the file is written once the server listens.
 */
export function newOperatorCredential(vaultPath: string): IssuedOperatorCredential {
  const value = randomBytes(CREDENTIAL_BYTES).toString('base64url');
  const path = operatorCredentialPath(vaultPath);
  let written = false;
  return {
    credential: operatorCredentialOf(value),
    path,
    async write() {
      await writeFileAtomically(
        path,
        (handle) => writeFully(handle, Buffer.from(`${value}\n`, 'utf8'), 0),
        0o600,
      );
      written = true;
    },
    async remove() {
      if (!written) return;
      written = false;
      await unlink(path).catch(() => undefined);
    },
  };
}

/** The credential in the file beside the vault, or null when no server wrote one. */
export async function readOperatorCredential(vaultPath: string): Promise<string | null> {
  try {
    const text = (await readFile(operatorCredentialPath(vaultPath), 'utf8')).trim();
    return text === '' ? null : text;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
