import { describe, expect, it } from 'vitest';
import { floorDatabase, floorEngineFromEnv } from './floor-engines.ts';
import type { FloorEngineName } from './floor-engines.ts';
import { CEILING_TENANT } from './insert-ceiling.ts';

const schemaOf = (engine: FloorEngineName) =>
  floorDatabase(engine).then((db) => {
    try {
      const names = db.prepare(
        "select group_concat(type || ':' || name, ' ') from (select type, name from sqlite_master order by type, name)",
      );
      const secureDelete = db.prepare('select secure_delete from pragma_secure_delete');
      const foreignKeys = db.prepare('select foreign_keys from pragma_foreign_keys');
      const tenant = db.prepare('select id from tenants');
      return {
        objects: names.first([]),
        secureDelete: secureDelete.first([]),
        foreignKeys: foreignKeys.first([]),
        tenants: tenant.first([]),
      };
    } finally {
      db.close();
    }
  });

describe('floorDatabase', () => {
  it("gives node:sqlite the same tables, indexes, pragmas and tenant as sql.js's vault schema", async () => {
    const [sqljs, native] = await Promise.all([schemaOf('sql.js'), schemaOf('node:sqlite')]);
    expect(native).toEqual(sqljs);
    expect(sqljs.tenants).toEqual([CEILING_TENANT]);
    expect(sqljs.secureDelete).toEqual([1]);
  });

  it.each(['sql.js', 'node:sqlite'] as const)(
    'runs statements and reads the first row on %s',
    async (engine) => {
      const db = await floorDatabase(engine);
      try {
        db.exec('create table t (k integer primary key, v text, b blob)');
        const insert = db.prepare('insert into t (k, v, b) values (?, ?, ?)');
        insert.run([1, 'one', new Uint8Array([1, 2])]);
        insert.run([2, 'two', null]);
        const find = db.prepare('select v, b from t where k = ?');
        expect(find.first([2])).toEqual(['two', null]);
        expect(Array.from(find.first([1])![1] as Uint8Array)).toEqual([1, 2]);
        expect(find.first([3])).toBeUndefined();
        for (const s of [insert, find]) s.free();
      } finally {
        db.close();
      }
    },
  );

  it('takes the engine from SVC_BENCH_FLOOR_ENGINE, and refuses one it does not know', () => {
    const before = process.env.SVC_BENCH_FLOOR_ENGINE;
    try {
      delete process.env.SVC_BENCH_FLOOR_ENGINE;
      expect(floorEngineFromEnv()).toBe('sql.js');
      process.env.SVC_BENCH_FLOOR_ENGINE = 'node:sqlite';
      expect(floorEngineFromEnv()).toBe('node:sqlite');
      process.env.SVC_BENCH_FLOOR_ENGINE = 'leveldb';
      expect(() => floorEngineFromEnv()).toThrow('SVC_BENCH_FLOOR_ENGINE must be sql.js or node:sqlite');
    } finally {
      if (before === undefined) delete process.env.SVC_BENCH_FLOOR_ENGINE;
      else process.env.SVC_BENCH_FLOOR_ENGINE = before;
    }
  });
});
