import type { StorageFs, StorageHandle } from '../../backends/embedded/storage-fs.ts';
import { FRAME_HEADER_BYTES, FRAME_HEAD_BYTES, frameLength, nonceOf } from './block-codec.ts';
import type { BlockSummary } from './block-summary.ts';
import { openEmpty, readExactly } from './segment-io.ts';

/**
 * The index of a segment still appended to (`.oidx`): the summaries of its blocks as far as its last
 * rewrite, so that opening the vault reads them instead of opening and decompressing every block.
 * It is a shortcut, never the truth: the segment file and its committed length are. So it is written
 * after a block's transaction committed, replaced in one step and not synced; at open only the
 * entries that still match the file are kept, and the blocks after them are read as before. A
 * missing, damaged, older or foreign index costs that read, never an error.
 */

/**
 * Committed blocks a segment gains before the spiller rewrites its index: each rewrite encodes the
 * whole list again, so rewriting it after every block would cost in proportion to the segment's
 * size on every spill; an open after a crash reads at most this many blocks more. Closing and
 * compacting bring it up to date.
 */
export const OPEN_INDEX_EVERY_BLOCKS = 16;

/**
 * The blocks an open segment's index may list: from offset 0 on, contiguous, each known by its
 * nonce, up to the first damaged one (a damaged block is found again by reading it at every open).
 */
export function indexable(blocks: readonly BlockSummary[]): BlockSummary[] {
  const out: BlockSummary[] = [];
  let offset = 0;
  for (const block of blocks) {
    if (block.damaged || block.nonce === undefined || block.offset !== offset) break;
    out.push(block);
    offset += block.length;
  }
  return out;
}

type Listed = BlockSummary & { readonly nonce: string };

function isListed(entry: unknown): entry is Listed {
  if (entry === null || typeof entry !== 'object') return false;
  const e = entry as Record<string, unknown>;
  return (
    Number.isSafeInteger(e.offset) &&
    Number.isSafeInteger(e.length) &&
    (e.length as number) > FRAME_HEAD_BYTES &&
    typeof e.nonce === 'string' &&
    e.tenants !== null &&
    typeof e.tenants === 'object' &&
    e.damaged === undefined
  );
}

/**
 * The leading entries of an open index that are still the segment's blocks: contiguous from offset
 * 0, ending within `end` (the committed length, and the file's size), each block's frame header on
 * disk announcing the listed length and its sealed bytes starting with the listed nonce. The nonce
 * is fresh at every sealing, so an entry never stands for another block written at the same place
 * (a spill rolled back, then another one) even with the same length. The sealed bytes are not
 * opened here: a block damaged since is found when it is read, as in a rolled segment.
 */
export async function matchingBlocks(
  handle: StorageHandle,
  listed: readonly unknown[],
  end: number,
): Promise<BlockSummary[]> {
  const candidates: Listed[] = [];
  let offset = 0;
  for (const entry of listed) {
    if (!isListed(entry) || entry.offset !== offset || offset + entry.length > end) break;
    candidates.push(entry);
    offset += entry.length;
  }
  const heads = await Promise.all(candidates.map((b) => readExactly(handle, b.offset, FRAME_HEAD_BYTES)));
  const kept: BlockSummary[] = [];
  for (let i = 0; i < candidates.length; i++) {
    const { offset: at, length, tenants, nonce } = candidates[i]!;
    const head = heads[i];
    if (!head || frameLength(head) !== length - FRAME_HEADER_BYTES || nonceOf(head) !== nonce) break;
    kept.push({ offset: at, length, tenants, nonce });
  }
  return kept;
}

/** Replaces a file in one step (written beside it, renamed over it), without syncing it. */
export async function replaceFile(fs: StorageFs, path: string, bytes: Uint8Array): Promise<void> {
  const temporary = `${path}.tmp`;
  const handle = await openEmpty(fs, temporary);
  try {
    await handle.write(bytes, 0, bytes.length, 0);
  } finally {
    await handle.close();
  }
  await fs.rename(temporary, path);
}
