import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import initSqlJs from 'sql.js';
import { describe, expect, it } from 'vitest';
import { newDatabaseImage } from './database-image.ts';
import { applyPragmas } from './pragmas.ts';
import {
  MAX_IN_PLACE_FILE_BYTES,
  fileGrowthCopies,
  firstWrite,
  growFile,
  loadSqlJs,
  patchedSqlJsSource,
  utf8LengthOf,
  utf8WriterOf,
} from './sqljs.ts';
import type { ResizableArrayBuffer } from './sqljs.ts';

const bufferOf = (array: Uint8Array) => array.buffer as ResizableArrayBuffer;

const MiB = 1024 * 1024;

describe('growFile', () => {
  it('moves a file over 1 MiB into a resizable buffer once, then grows it in place', () => {
    const plain = new Uint8Array(2 * MiB).fill(7);
    const before = fileGrowthCopies();
    const moved = growFile(plain, 2 * MiB, 2 * MiB + 10);
    expect(fileGrowthCopies()).toBe(before + 1);
    expect(bufferOf(moved).resizable).toBe(true);
    expect(bufferOf(moved).maxByteLength).toBe(MAX_IN_PLACE_FILE_BYTES);
    expect(moved.length).toBeGreaterThanOrEqual(2 * MiB + 10);
    expect(moved[2 * MiB - 1]).toBe(7);
    expect(moved[2 * MiB]).toBe(0);

    const grown = growFile(moved, 2 * MiB, 40 * MiB);
    expect(grown).toBe(moved);
    expect(grown.length).toBeGreaterThanOrEqual(40 * MiB);
    expect(grown[0]).toBe(7);
    expect(grown[2 * MiB - 1]).toBe(7);
    expect(grown[40 * MiB - 1]).toBe(0);
    expect(fileGrowthCopies()).toBe(before + 1);
  });

  it('grows geometrically, so a file growing by small writes resizes rarely', () => {
    const file = growFile(null, 0, 64 * MiB);
    expect(file.length).toBe(64 * MiB);
    growFile(file, 64 * MiB, 64 * MiB + 4096);
    expect(file.length).toBe(72 * MiB);
    growFile(file, 64 * MiB + 4096, 70 * MiB);
    expect(file.length).toBe(72 * MiB);
  });

  it('keeps small files in plain arrays that double, as Emscripten does', () => {
    const small = growFile(null, 0, 100);
    expect(bufferOf(small).resizable).toBe(false);
    expect(small.length).toBe(256);
    small.set([1, 2, 3]);
    const doubled = growFile(small, 3, 300);
    expect(doubled.length).toBe(512);
    expect([...doubled.subarray(0, 4)]).toEqual([1, 2, 3, 0]);
  });
});

describe('loadSqlJs', () => {
  it('patches the installed sql.js build (a different build must be checked before it is used)', () => {
    const file = createRequire(import.meta.url).resolve('sql.js');
    expect(patchedSqlJsSource(readFileSync(file, 'utf8'))).not.toBeNull();
    expect(patchedSqlJsSource('function write(){}')).toBeNull();
  });

  it('grows a database file in place: one copy on open, none per commit, the same bytes exported', async () => {
    const SQL = await loadSqlJs();
    const built = new SQL.Database();
    applyPragmas(built);
    built.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB)');
    const blob = new Uint8Array(1000).fill(9);
    const insert = (db: typeof built, rows: number) => {
      db.exec('BEGIN');
      const statement = db.prepare('INSERT INTO t (v) VALUES (?)');
      for (let i = 0; i < rows; i += 1) statement.run([blob]);
      statement.free();
      db.exec('COMMIT');
    };
    for (let i = 0; i < 4; i += 1) insert(built, 1000);
    const image = built.export();
    built.close();
    expect(image.length).toBeGreaterThan(3 * MiB);

    const before = fileGrowthCopies();
    const db = new SQL.Database(image);
    applyPragmas(db);
    expect(fileGrowthCopies()).toBe(before); // the load's own copy lands in a resizable buffer
    for (let i = 0; i < 20; i += 1) insert(db, 500);
    expect(fileGrowthCopies()).toBe(before);
    expect(db.exec('PRAGMA integrity_check')[0]?.values).toEqual([['ok']]);
    const exported = db.export();
    const reopened = new SQL.Database(exported);
    expect(reopened.exec('SELECT count(*), sum(length(v)) FROM t')[0]?.values).toEqual([[14000, 14_000_000]]);
    expect(reopened.exec('PRAGMA integrity_check')[0]?.values).toEqual([['ok']]);
    reopened.close();
    db.close();
  });

  it('opens a database from a handed-over image without copying it, and the database stays whole', async () => {
    const SQL = await loadSqlJs();
    const built = new SQL.Database();
    applyPragmas(built);
    built.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB)');
    built.exec('BEGIN');
    const statement = built.prepare('INSERT INTO t (v) VALUES (?)');
    for (let i = 0; i < 3000; i += 1) statement.run([new Uint8Array(1000).fill(5)]);
    statement.free();
    built.exec('COMMIT');
    const exported = built.export();
    built.close();

    const image = newDatabaseImage(exported.length);
    image.set(exported);
    const db = new SQL.Database(image);
    applyPragmas(db);
    db.exec('BEGIN');
    const more = db.prepare('INSERT INTO t (v) VALUES (?)');
    for (let i = 0; i < 3000; i += 1) more.run([new Uint8Array(1000).fill(6)]);
    more.free();
    db.exec('COMMIT');
    expect(db.exec('SELECT count(*), sum(length(v)) FROM t')[0]?.values).toEqual([[6000, 6_000_000]]);
    expect(db.exec('PRAGMA integrity_check')[0]?.values).toEqual([['ok']]);
    // The file the database grew into is the image's own buffer: it was kept, not copied.
    expect(image.length).toBeGreaterThan(exported.length);
    db.close();
  });
});

describe('firstWrite', () => {
  it('keeps a handed-over image written whole, once; copies anything else', () => {
    const image = newDatabaseImage(2 * MiB).fill(3);
    expect(firstWrite(null, image, 0, image.length) === image).toBe(true);
    const again = firstWrite(null, image, 0, image.length);
    expect(again === image).toBe(false);
    expect(again[2 * MiB - 1]).toBe(3);

    const part = newDatabaseImage(2 * MiB);
    expect(firstWrite(null, part, 0, MiB) === part).toBe(false);
    const plain = new Uint8Array(2 * MiB);
    expect(firstWrite(null, plain, 0, plain.length) === plain).toBe(false);
    const small = newDatabaseImage(1000);
    expect(firstWrite(null, small, 0, small.length) === small).toBe(false);
  });
});

describe('UTF-8 of bound text', () => {
  const texts = [
    '',
    'short',
    'v1.1.' + 'QUJD'.repeat(40),
    'Jäne Döe, ünïcødé and 😀 emoji '.repeat(3),
    'a lone \ud800 surrogate in a long enough string',
    'a lone trailing surrogate at the end of a long string \udc00',
    'NUL \u0000 inside a long enough string, and after it',
    '€'.repeat(100),
  ];

  it('binds the same bytes as the stock build, long strings and lone surrogates alike', async () => {
    const patched = await loadSqlJs();
    const stock = await initSqlJs();
    const bytes = (SQL: typeof stock) => {
      const db = new SQL.Database();
      const statement = db.prepare('SELECT hex(CAST(? AS BLOB)) AS h, ? AS v');
      const out = texts.map((text) => {
        statement.bind([text, text]);
        statement.step();
        const row = statement.getAsObject();
        statement.reset();
        return row;
      });
      statement.free();
      db.close();
      return out;
    };
    expect(bytes(patched)).toEqual(bytes(stock));
    expect(bytes(patched)[2]).toEqual({
      h: Buffer.from(texts[2]!).toString('hex').toUpperCase(),
      v: texts[2],
    });
  });

  it('counts and writes well-formed long strings natively, with the NUL and truncation of the loop', () => {
    const slowLength = () => -1;
    const slowWrite = () => -1;
    const length = utf8LengthOf(slowLength);
    const write = utf8WriterOf(slowWrite);
    const text = 'Jäne Döe, ünïcødé and 😀 emoji '.repeat(2);
    const utf8 = Buffer.from(text);
    expect(length(text)).toBe(utf8.length);
    expect(length('short')).toBe(-1);
    expect(length(texts[4]!)).toBe(-1);

    const heap = new Uint8Array(200).fill(0xff);
    expect(write(text, heap, 10, utf8.length + 1)).toBe(utf8.length);
    expect(Buffer.from(heap.subarray(10, 10 + utf8.length)).equals(utf8)).toBe(true);
    expect(heap[10 + utf8.length]).toBe(0);
    expect(heap[9]).toBe(0xff);

    // Room for "Jä" and half of "n": only whole characters, then the NUL.
    const short = new Uint8Array(8).fill(0xff);
    expect(write(text, short, 0, 4)).toBe(3);
    expect([...short.subarray(0, 5)]).toEqual([0x4a, 0xc3, 0xa4, 0, 0xff]);

    expect(write(texts[4]!, heap, 0, 100)).toBe(-1);
    expect(write(text, [], 0, 100)).toBe(-1);
    expect(write(text, heap, 0, 0)).toBe(-1);
  });
});
