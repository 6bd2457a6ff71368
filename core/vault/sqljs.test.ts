import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { applyPragmas } from '../storage/pragmas.ts';
import {
  MAX_IN_PLACE_FILE_BYTES,
  fileGrowthCopies,
  growFile,
  loadSqlJs,
  patchedSqlJsSource,
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
});
