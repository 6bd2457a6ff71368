import { VaultError } from '../../errors/catalogue.ts';
import type { Sodium } from '../../crypto/sodium.ts';
import { scanJournal } from './journal.ts';
import type { StorageFs } from './storage-fs.ts';
import { openVaultFile, readHeader, readSnapshot, writeVaultFile } from './vault-file.ts';
import type { VaultHeader } from './vault-file.ts';
import { checkSegmentsFollow, replaySegments } from '../../vault/load.ts';

/** What a background snapshot hands to the code that builds the new vault file. */
export interface SnapshotBuildRequest {
  readonly vaultPath: string;
  /** The journal segment closed by the rotation (`vault.journal.prev`). */
  readonly segmentPath: string;
  /** The new vault file's header; its snapshot sequence is the closed segment's last commit. */
  readonly header: VaultHeader;
  /** File keys by term, for the snapshot on disk, the closed segment and the new snapshot. */
  readonly fileKeys: ReadonlyArray<readonly [term: number, key: Uint8Array]>;
}

/**
 * Builds the new vault file from the files, not from the live database: decrypts the snapshot on
 * disk, replays the closed segment onto it (as opening the vault does), checks that this reaches
 * exactly the commit the header names, and writes the result atomically in place of the old file.
 * The live database never stops for the copy; the cost is a second copy of the database in memory
 * (here, in the snapshot worker) while it is built.
 */
export async function buildSnapshotFromFiles(
  sodium: Sodium,
  fs: StorageFs,
  request: SnapshotBuildRequest,
): Promise<void> {
  const keys = new Map(request.fileKeys);
  const fileKey = (term: number): Uint8Array => {
    const key = keys.get(term);
    if (!key) throw new VaultError('INTERNAL', `No file key for term ${term} was handed to the snapshot.`);
    return key;
  };
  const { vaultPath, segmentPath, header } = request;
  const segmentHandle = await fs.open(segmentPath, 'r');
  let segment;
  try {
    segment = { scan: await scanJournal(sodium, segmentHandle, segmentPath, fileKey), path: segmentPath };
  } finally {
    await segmentHandle.close();
  }
  const vaultHandle = await openVaultFile(vaultPath, fs);
  let replayed;
  try {
    const read = await readHeader(sodium, vaultHandle, vaultPath);
    if (read.header.vault_id !== header.vault_id) {
      throw new VaultError('VAULT_CORRUPT', `${vaultPath} now holds another vault.`);
    }
    checkSegmentsFollow(read.header, [segment]);
    // The decrypted image is not kept here: sql.js holds its own copy once loaded.
    replayed = await replaySegments(
      await readSnapshot(sodium, vaultHandle, vaultPath, read, fileKey(read.header.snapshot.term)),
      read.header.snapshot.sequence,
      [segment],
    );
  } finally {
    await vaultHandle.close();
  }
  const { sqlite, sequence } = replayed;
  let db: Uint8Array;
  try {
    if (sequence !== header.snapshot.sequence) {
      throw new VaultError(
        'VAULT_CORRUPT',
        `The journal ${segmentPath} ends at commit ${sequence}, not at commit ${header.snapshot.sequence} where it was closed.`,
      );
    }
    db = sqlite.export();
  } finally {
    sqlite.close();
  }
  await writeVaultFile(sodium, vaultPath, header, fileKey(header.snapshot.term), db, fs);
}
