import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { KeySource } from '../../core/crypto/root-key.ts';

/** Electron's safeStorage (the OS keychain: Keychain, DPAPI, libsecret/kwallet). */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
}

/**
 * Keys the user asked the app to remember, per vault path. Off by default; each entry is sealed by
 * the OS keychain, so the file alone (0600) unlocks nothing. Never used when the keychain is not
 * available (safeStorage would fall back to a hard-coded key on some Linux desktops).
 */
export class RememberedKeys {
  constructor(
    private readonly file: string,
    private readonly safeStorage: SafeStorageLike,
  ) {}

  available(): boolean {
    return this.safeStorage.isEncryptionAvailable();
  }

  async has(path: string): Promise<boolean> {
    return (await this.read())[path] !== undefined;
  }

  async remember(path: string, key: KeySource): Promise<void> {
    if (!this.available()) return;
    const plain =
      key.kind === 'passphrase'
        ? JSON.stringify({ kind: 'passphrase', passphrase: key.passphrase })
        : JSON.stringify({ kind: 'key', key: Buffer.from(key.key).toString('base64') });
    const entries = await this.read();
    entries[path] = this.safeStorage.encryptString(plain).toString('base64');
    await this.write(entries);
  }

  async recall(path: string): Promise<KeySource | null> {
    if (!this.available()) return null;
    const sealed = (await this.read())[path];
    if (sealed === undefined) return null;
    try {
      const parsed = JSON.parse(this.safeStorage.decryptString(Buffer.from(sealed, 'base64'))) as {
        kind?: unknown;
        passphrase?: unknown;
        key?: unknown;
      };
      if (parsed.kind === 'passphrase' && typeof parsed.passphrase === 'string') {
        return { kind: 'passphrase', passphrase: parsed.passphrase };
      }
      if (parsed.kind === 'key' && typeof parsed.key === 'string') {
        return { kind: 'key', key: new Uint8Array(Buffer.from(parsed.key, 'base64')) };
      }
    } catch {
      // A keychain that changed (new OS user, reset) cannot open it: as if nothing was remembered.
    }
    return null;
  }

  async forget(path: string): Promise<void> {
    const entries = await this.read();
    if (entries[path] === undefined) return;
    delete entries[path];
    await this.write(entries);
  }

  private async read(): Promise<Record<string, string>> {
    try {
      const parsed: unknown = JSON.parse(await readFile(this.file, 'utf8'));
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
      const entries: Record<string, string> = Object.create(null) as Record<string, string>;
      for (const [k, v] of Object.entries(parsed)) if (typeof v === 'string') entries[k] = v;
      return entries;
    } catch {
      return Object.create(null) as Record<string, string>;
    }
  }

  private async write(entries: Record<string, string>): Promise<void> {
    await writeJsonPrivately(this.file, entries);
  }
}

/** Written beside, then renamed: a crash leaves the old file or the new one, never half of one. */
export async function writeJsonPrivately(file: string, value: unknown): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, JSON.stringify(value, null, 2), { mode: 0o600 });
  await chmod(temp, 0o600);
  await rename(temp, file);
}
