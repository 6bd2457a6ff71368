/**
 * The decrypted SQLite image a vault is opened from, allocated where sql.js can keep it.
 *
 * Opening copies the image into sql.js's in-memory file, and on this class of machine the cost of
 * that copy is mostly first-touch page faults on a second array as large as the database (a
 * 1.25 GiB image: seconds). An image allocated here lives in a resizable ArrayBuffer, the storage
 * sql.js's files grow in place in (core/backends/embedded/sqljs.ts), and is marked as handed over: the loader
 * takes the array itself as the file instead of copying it. Whoever allocates an image must not
 * read or change it after opening a database from it.
 */

/**
 * The largest in-memory file kept in a resizable buffer: the most a resizable ArrayBuffer may
 * reserve here, and the most Emscripten's file arithmetic (`>>> 0`) handles. Only address space
 * is reserved: pages are backed when first written.
 */
export const MAX_IN_PLACE_FILE_BYTES = 2 ** 32;

/** Below this a file is a plain array that doubles, as Emscripten grows it. */
export const SMALL_FILE_BYTES = 1024 * 1024;

/** An ES2024 resizable ArrayBuffer: Node 20 has them; the TypeScript lib this project targets predates them. */
export interface ResizableArrayBuffer extends ArrayBuffer {
  readonly resizable: boolean;
  readonly maxByteLength: number;
  resize(byteLength: number): void;
}

export const ResizableArrayBuffer = ArrayBuffer as unknown as new (
  byteLength: number,
  options: { maxByteLength: number },
) => ResizableArrayBuffer;

const handedOver = new WeakSet<Uint8Array>();

/**
 * A zeroed array of `bytes` for a database image: in a resizable buffer, marked as handed over,
 * when its size is one sql.js keeps in such a buffer; a plain array (which the loader copies)
 * otherwise, or when the address space cannot be reserved.
 */
export function newDatabaseImage(bytes: number): Uint8Array {
  if (bytes < SMALL_FILE_BYTES || bytes > MAX_IN_PLACE_FILE_BYTES) return new Uint8Array(bytes);
  let image: Uint8Array;
  try {
    // A length-tracking view: it spans the buffer as the file grows in place.
    image = new Uint8Array(new ResizableArrayBuffer(bytes, { maxByteLength: MAX_IN_PLACE_FILE_BYTES }));
  } catch {
    return new Uint8Array(bytes);
  }
  handedOver.add(image);
  return image;
}

/**
 * True once for an image from `newDatabaseImage` written whole (`offset` 0, every byte): the
 * caller may keep the array itself. Later calls with the same array answer false.
 */
export function takeDatabaseImage(array: Uint8Array, offset: number, length: number): boolean {
  return offset === 0 && length === array.length && handedOver.delete(array);
}
