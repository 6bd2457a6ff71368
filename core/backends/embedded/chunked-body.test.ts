import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isVaultError } from '../../errors/catalogue.ts';
import { loadSodium } from '../../crypto/sodium.ts';
import type { Sodium } from '../../crypto/sodium.ts';
import { makeTempDir } from '../../test-support/temp-vault.ts';
import type { TempDir } from '../../test-support/temp-vault.ts';
import { CHUNKED_BODY_FORMAT } from './chunked-body.ts';
import {
  VAULT_FORMAT_VERSION,
  openVaultFile,
  readHeader,
  readSnapshot,
  writeVaultFile,
} from './vault-file.ts';
import type { VaultHeader } from './vault-file.ts';

const SALT_BYTES = 32;
const MiB = 1024 * 1024;

const header: VaultHeader = {
  vault_id: 'vault-under-test',
  created_at: '2026-01-01T00:00:00.000Z',
  kdf: { kind: 'key' },
  keyring: '',
  terms: [1],
  snapshot: { sequence: 7, term: 1, written_at: '2026-01-01T00:00:00.000Z' },
  acknowledged_mark: true,
};

/** The vault file cut into its header, the body's salt and its frames ([u32 length][sealed chunk]). */
interface Parts {
  readonly head: Buffer;
  readonly salt: Buffer;
  readonly frames: Buffer[];
}

async function partsOf(sodium: Sodium, path: string): Promise<Parts> {
  const handle = await openVaultFile(path);
  const { bodyOffset } = await readHeader(sodium, handle, path).finally(() => handle.close());
  const bytes = await readFile(path);
  const frames: Buffer[] = [];
  for (let at = bodyOffset + SALT_BYTES; at < bytes.length;) {
    const end = at + 4 + bytes.readUInt32LE(at);
    frames.push(bytes.subarray(at, end));
    at = end;
  }
  return {
    head: bytes.subarray(0, bodyOffset),
    salt: bytes.subarray(bodyOffset, bodyOffset + SALT_BYTES),
    frames,
  };
}

async function writeParts(path: string, parts: Parts): Promise<void> {
  await writeFile(path, Buffer.concat([parts.head, parts.salt, ...parts.frames]));
}

async function read(sodium: Sodium, path: string, key: Uint8Array): Promise<Uint8Array> {
  const handle = await openVaultFile(path);
  try {
    return await readSnapshot(sodium, handle, path, await readHeader(sodium, handle, path), key);
  } finally {
    await handle.close();
  }
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(isVaultError(err, 'VAULT_CORRUPT'), `expected VAULT_CORRUPT, got ${String(err)}`).toBe(true);
  return (err as Error).message;
}

describe('chunked snapshot body', () => {
  let tmp: TempDir;
  let sodium: Sodium;
  const key = new Uint8Array(randomBytes(32));
  // Metadata, three full chunks and a partial one.
  const image = new Uint8Array(randomBytes(3 * MiB + 12345));

  beforeEach(async () => {
    sodium = await loadSodium();
    tmp = await makeTempDir();
    await writeVaultFile(sodium, tmp.vaultPath, header, key, image);
  });
  afterEach(() => tmp.cleanup());

  it('round-trips the image, naming its format in a version-2 header, with times reported', async () => {
    const handle = await openVaultFile(tmp.vaultPath);
    try {
      const at = await readHeader(sodium, handle, tmp.vaultPath);
      expect(at.formatVersion).toBe(VAULT_FORMAT_VERSION);
      expect(at.header.snapshot.body).toBe(CHUNKED_BODY_FORMAT);
      let times: { readMs: number; decryptMs: number } | undefined;
      const back = await readSnapshot(sodium, handle, tmp.vaultPath, at, key, (t) => (times = t));
      expect(Buffer.from(back).equals(Buffer.from(image))).toBe(true);
      expect(times!.readMs).toBeGreaterThan(0);
      expect(times!.decryptMs).toBeGreaterThan(0);
    } finally {
      await handle.close();
    }
    expect((await partsOf(sodium, tmp.vaultPath)).frames).toHaveLength(5);
  });

  it('round-trips an empty image (the metadata chunk is the last one)', async () => {
    await writeVaultFile(sodium, tmp.vaultPath, header, key, new Uint8Array(0));
    expect((await read(sodium, tmp.vaultPath, key)).length).toBe(0);
  });

  it('seals each file under its own key: the same image and file key never give the same bytes', async () => {
    const first = await partsOf(sodium, tmp.vaultPath);
    await writeVaultFile(sodium, tmp.vaultPath, header, key, image);
    const second = await partsOf(sodium, tmp.vaultPath);
    expect(second.salt.equals(first.salt)).toBe(false);
    expect(second.frames[1]!.equals(first.frames[1]!)).toBe(false);
  });

  it('refuses a flipped byte in any chunk, its tag or its length', async () => {
    const parts = await partsOf(sodium, tmp.vaultPath);
    for (const [frame, at] of [
      [1, 4 + 1000],
      [2, parts.frames[2]!.length - 1],
      [0, 4],
      [3, 0],
    ] as const) {
      const frames = parts.frames.map((f) => Buffer.from(f));
      const damaged = frames[frame]!;
      damaged[at] = damaged[at]! ^ 0x01;
      await writeParts(tmp.vaultPath, { ...parts, frames });
      await refusal(read(sodium, tmp.vaultPath, key));
    }
    const salt = Buffer.from(parts.salt);
    salt[0] = salt[0]! ^ 0x01;
    await writeParts(tmp.vaultPath, { ...parts, salt });
    expect(await refusal(read(sodium, tmp.vaultPath, key))).toMatch(/failed authentication/);
  });

  it('refuses two chunks swapped', async () => {
    const parts = await partsOf(sodium, tmp.vaultPath);
    const [meta, a, b, ...rest] = parts.frames;
    await writeParts(tmp.vaultPath, { ...parts, frames: [meta!, b!, a!, ...rest] });
    expect(await refusal(read(sodium, tmp.vaultPath, key))).toMatch(/failed authentication/);
  });

  it('refuses the last chunk dropped, and everything after the metadata dropped', async () => {
    const parts = await partsOf(sodium, tmp.vaultPath);
    await writeParts(tmp.vaultPath, { ...parts, frames: parts.frames.slice(0, -1) });
    expect(await refusal(read(sodium, tmp.vaultPath, key))).toMatch(/failed authentication/);
    await writeParts(tmp.vaultPath, { ...parts, frames: parts.frames.slice(0, 1) });
    expect(await refusal(read(sodium, tmp.vaultPath, key))).toMatch(/failed authentication/);
  });

  it('refuses a chunk appended after the last one, and stray bytes after it', async () => {
    const parts = await partsOf(sodium, tmp.vaultPath);
    await writeParts(tmp.vaultPath, { ...parts, frames: [...parts.frames, parts.frames[1]!] });
    expect(await refusal(read(sodium, tmp.vaultPath, key))).toMatch(/failed authentication/);
    for (const stray of [Buffer.from([0]), Buffer.alloc(4), Buffer.alloc(64)]) {
      await writeParts(tmp.vaultPath, { ...parts, frames: [...parts.frames, stray] });
      await refusal(read(sodium, tmp.vaultPath, key));
    }
  });

  it('refuses a body cut short inside a chunk or inside the salt', async () => {
    const parts = await partsOf(sodium, tmp.vaultPath);
    const last = parts.frames.at(-1)!;
    await writeParts(tmp.vaultPath, {
      ...parts,
      frames: [...parts.frames.slice(0, -1), last.subarray(0, 100)],
    });
    expect(await refusal(read(sodium, tmp.vaultPath, key))).toMatch(/truncated/);
    await writeParts(tmp.vaultPath, { ...parts, salt: parts.salt.subarray(0, 10), frames: [] });
    expect(await refusal(read(sodium, tmp.vaultPath, key))).toMatch(/truncated/);
  });

  it('refuses a wrong file key, and a body moved under another vault or sequence', async () => {
    expect(await refusal(read(sodium, tmp.vaultPath, new Uint8Array(randomBytes(32))))).toMatch(
      /failed authentication/,
    );
    const parts = await partsOf(sodium, tmp.vaultPath);
    const other = `${tmp.vaultPath}.other`;
    await writeVaultFile(sodium, other, { ...header, vault_id: 'another-vault' }, key, image);
    await writeParts(other, { ...(await partsOf(sodium, other)), salt: parts.salt, frames: parts.frames });
    expect(await refusal(read(sodium, other, key))).toMatch(/failed authentication/);
    const later = { ...header, snapshot: { ...header.snapshot, sequence: 8 } };
    await writeVaultFile(sodium, other, later, key, image);
    await writeParts(other, { ...(await partsOf(sodium, other)), salt: parts.salt, frames: parts.frames });
    expect(await refusal(read(sodium, other, key))).toMatch(/header and snapshot disagree/);
  });
});
