import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { runInThisContext } from 'node:vm';
import initSqlJs from 'sql.js';
import {
  MAX_IN_PLACE_FILE_BYTES,
  ResizableArrayBuffer,
  SMALL_FILE_BYTES,
  takeDatabaseImage,
} from './database-image.ts';
import type { SqlJsStatic } from 'sql.js';

let loading: Promise<SqlJsStatic> | undefined;

/** The sql.js WASM module, loaded once per process, with its in-memory files grown in place. */
export function loadSqlJs(): Promise<SqlJsStatic> {
  loading ??= (inPlaceGrowthBuild() ?? initSqlJs)();
  return loading;
}

export { MAX_IN_PLACE_FILE_BYTES } from './database-image.ts';
export type { ResizableArrayBuffer } from './database-image.ts';

let copies = 0;

/**
 * How many times a file of 1 MiB or more was copied to grow it since the process started (its
 * first move into a resizable buffer). A file that grows in place is never copied again.
 */
export function fileGrowthCopies(): number {
  return copies;
}

/**
 * The storage of an in-memory file of `used` bytes that must hold `needed`: the same array when
 * its resizable buffer can grow in place, else a new one holding the first `used` bytes.
 *
 * Emscripten's MEMFS grows a file by allocating a new array at most 1.125 times as large and
 * copying the whole file into it. sql.js keeps the database in such a file and SQLite extends it
 * on commit, so a vault that grows (every read writes audit rows) copied its whole database on the
 * event loop every 12.5 % of growth: on a 100,000-token vault (≈ 130 MiB) each copy stalled every
 * request for hundreds of milliseconds, mostly first-touch page faults on the new array. Here a
 * file over 1 MiB lives in a resizable ArrayBuffer that reserves address space for the largest
 * file and grows in place (geometrically, so resizes are rare): its bytes are copied once, when it
 * leaves a plain array (on load that is the copy the load made anyway). Bytes past `used` are
 * zero: a fresh or grown buffer is zeroed, and Emscripten's truncation replaces the array.
 */
export function growFile(contents: Uint8Array | null, used: number, needed: number): Uint8Array {
  const buffer = resizableBufferOf(contents);
  if (
    contents &&
    buffer &&
    contents.byteOffset === 0 &&
    contents.length === buffer.byteLength &&
    needed <= buffer.maxByteLength
  ) {
    if (contents.length < needed)
      buffer.resize(grownCapacity(buffer.byteLength, needed, buffer.maxByteLength));
    // A length-tracking view: it now spans the grown buffer.
    return contents;
  }
  let next: Uint8Array;
  if (needed < SMALL_FILE_BYTES) {
    next = new Uint8Array(Math.max(needed, 256, (contents?.length ?? 0) * 2));
  } else if (needed <= MAX_IN_PLACE_FILE_BYTES) {
    const capacity = grownCapacity(contents?.length ?? 0, needed, MAX_IN_PLACE_FILE_BYTES);
    next = reserveInPlace(capacity) ?? new Uint8Array(capacity);
  } else {
    next = new Uint8Array(needed); // past what a resizable buffer reserves: Emscripten's own growth
  }
  if (contents && used > 0) next.set(contents.subarray(0, used));
  if (used >= SMALL_FILE_BYTES) copies += 1;
  return next;
}

/**
 * A resizable array of `capacity` bytes reserving address space for the largest file, or null where
 * that reservation is refused (a capped address space, `ulimit -v`): the file then grows by copying.
 */
function reserveInPlace(capacity: number): Uint8Array | null {
  try {
    return new Uint8Array(new ResizableArrayBuffer(capacity, { maxByteLength: MAX_IN_PLACE_FILE_BYTES }));
  } catch (error) {
    if (error instanceof RangeError) return null;
    throw error;
  }
}

function resizableBufferOf(contents: Uint8Array | null): ResizableArrayBuffer | null {
  const buffer = contents?.buffer;
  return buffer instanceof ArrayBuffer && (buffer as Partial<ResizableArrayBuffer>).resizable === true
    ? (buffer as ResizableArrayBuffer)
    : null;
}

/**
 * The storage of an empty file after its first write of `length` bytes from `source` at `offset`
 * (how sql.js opens a database from an image): the image itself when it was allocated to be handed
 * over (core/backends/embedded/database-image.ts), so opening a vault copies and faults in its database once
 * instead of twice; else a copy, in storage `growFile` can grow.
 */
export function firstWrite(
  contents: Uint8Array | null,
  source: Uint8Array,
  offset: number,
  length: number,
): Uint8Array {
  if (takeDatabaseImage(source, offset, length)) return source;
  const file = growFile(contents, 0, length);
  file.set(source.subarray(offset, offset + length));
  return file;
}

/** 1/8 more than now (at least 1 MiB more), never less than needed nor more than the limit. */
function grownCapacity(current: number, needed: number, limit: number): number {
  return Math.min(limit, Math.max(needed, current + Math.max(current / 8, SMALL_FILE_BYTES))) >>> 0 || limit;
}

/** This build's `lengthBytesUTF8` and `stringToUTF8Array`, as they appear in its source. */
const EMSCRIPTEN_UTF8_LENGTH =
  'l=a=>{for(var b=0,d=0;d<a.length;++d){var c=a.codePointAt(d);c<=127?b++:c<=2047?b+=2:c<=65535?b+=3:(b+=4,d++)}return b},';
const EMSCRIPTEN_UTF8_WRITE =
  'L=(a,b,d,c)=>{if(!(c>0))return 0;var e=d;c=d+c-1;for(var g=0;g<a.length;++g){var m=a.codePointAt(g);if(m<=127){if(d>=c)break;b[d++]=m}else if(m<=2047){if(d+1>=c)break;b[d++]=192|m>>6;b[d++]=128|m&63}else if(m<=65535){if(d+2>=c)break;b[d++]=224|m>>12;b[d++]=128|m>>6&63;b[d++]=128|m&63}else{if(d+3>=c)break;b[d++]=240|m>>18;b[d++]=128|m>>12&63;b[d++]=128|m>>6&63;b[d++]=128|m&63;g++}}b[d]=0;return d-e},';

/**
 * Strings at least this long are measured and encoded natively. Emscripten does both in a
 * JavaScript loop over code points (≈ 6 ns a character); below this length the native call costs
 * more than the loop saves.
 */
const NATIVE_UTF8_FROM = 32;

/** `String.prototype.isWellFormed` (Node 20), not yet in the ES2023 typings. */
interface WellFormedCheck {
  isWellFormed(): boolean;
}

/**
 * A well-formed string's UTF-8 is the same whoever encodes it; a string with a lone surrogate is
 * left to Emscripten, whose loop encodes the surrogate itself where the native encoders write
 * U+FFFD.
 */
function encodesNatively(text: string): boolean {
  return text.length >= NATIVE_UTF8_FROM && (text as unknown as WellFormedCheck).isWellFormed();
}

/** Emscripten's `lengthBytesUTF8`, native for long strings (the same count). */
export function utf8LengthOf(slow: (text: string) => number): (text: string) => number {
  return (text) => (encodesNatively(text) ? Buffer.byteLength(text, 'utf8') : slow(text));
}

type Utf8Writer = (text: string, heap: Uint8Array | number[], at: number, max: number) => number;

/**
 * Emscripten's `stringToUTF8Array`, native for long strings into a byte array: the same bytes, the
 * same truncation at a character boundary when `max` (which counts the terminating NUL) is short,
 * the same NUL after them and the same count of bytes written.
 */
export function utf8WriterOf(slow: Utf8Writer): Utf8Writer {
  const encoder = new TextEncoder();
  return (text, heap, at, max) => {
    if (!(max > 0) || !(heap instanceof Uint8Array) || !encodesNatively(text))
      return slow(text, heap, at, max);
    const { written } = encoder.encodeInto(text, heap.subarray(at, at + max - 1));
    heap[at + written] = 0;
    return written;
  };
}

/**
 * Growth of MEMFS files, in this sql.js build's file `write`: a write past the end copies the file
 * into a larger array; the first write into an empty file (the image a database is opened from)
 * copies the bytes into an array of their exact size. They go through `growFile` and `firstWrite` instead. The
 * UTF-8 length and encoder of strings go through `utf8LengthOf` and `utf8WriterOf`. The texts are
 * this build's; another build leaves the stock module in use (a test pins the build).
 */
const GROWTH_PATCHES: ReadonlyArray<readonly [string, string]> = [
  [
    'm>=g||(g=Math.max(g,m*(m<1048576?2:1.125)>>>0),m&&(g=\nMath.max(g,256)),m=a.Ua.subarray(0,a.Wa),a.Ua=new Uint8Array(g),a.Ua.set(m));',
    'm>=g||(a.Ua=__growFile(a.Ua,a.Wa,g));',
  ],
  ['else a.Ua=b.slice(d,d+c),a.Wa=c;return c}', 'else a.Ua=__firstWrite(a.Ua,b,d,c),a.Wa=c;return c}'],
  // Emscripten's UTF-8 length and encoder of a JavaScript string (every text bound to a statement,
  // every SQL text), wrapped by `utf8LengthOf` and `utf8WriterOf`.
  [EMSCRIPTEN_UTF8_LENGTH, `l=__utf8LengthOf(${EMSCRIPTEN_UTF8_LENGTH.slice(2, -1)}),`],
  [EMSCRIPTEN_UTF8_WRITE, `L=__utf8WriterOf(${EMSCRIPTEN_UTF8_WRITE.slice(2, -1)}),`],
];

/** The installed sql.js source with `GROWTH_PATCHES` applied, or null when a text is not found once. */
export function patchedSqlJsSource(source: string): string | null {
  let patched = source;
  for (const [from, to] of GROWTH_PATCHES) {
    if (patched.split(from).length !== 2) return null;
    patched = patched.replace(from, () => to);
  }
  return patched;
}

/**
 * sql.js's `initSqlJs` evaluated from its installed file with the patches above, as Node would
 * load it (CommonJS, its own directory for the .wasm file); null when the build differs.
 */
function inPlaceGrowthBuild(): typeof initSqlJs | null {
  const require = createRequire(import.meta.url);
  const file = require.resolve('sql.js');
  const source = patchedSqlJsSource(readFileSync(file, 'utf8'));
  if (source === null) return null;
  const module: { exports: unknown } = { exports: {} };
  const factory = runInThisContext(
    `(function (exports, require, module, __filename, __dirname, __growFile, __firstWrite, __utf8LengthOf, __utf8WriterOf) {${source}\n})`,
    { filename: file },
  ) as (...args: unknown[]) => void;
  factory(
    module.exports,
    createRequire(file),
    module,
    file,
    dirname(file),
    growFile,
    firstWrite,
    utf8LengthOf,
    utf8WriterOf,
  );
  return module.exports as typeof initSqlJs;
}
