import { describe, expect, it } from 'vitest';
import { TableCache, TableChanges } from './table-changes.ts';

describe('TableChanges', () => {
  it('changes the version of a table on each write to it, and again when its transaction ends', () => {
    const changes = new TableChanges();
    const v0 = changes.version(['applications']);
    changes.noteWrite('insert into "audit_log" ("id") values (?)');
    expect(changes.version(['applications'])).toBe(v0);
    changes.noteWrite('update "applications" set "name" = ? where "id" = ?');
    const v1 = changes.version(['applications']);
    expect(v1).not.toBe(v0);
    changes.noteTransactionEnd();
    expect(changes.version(['applications'])).not.toBe(v1);
    const v2 = changes.version(['applications']);
    changes.noteTransactionEnd();
    expect(changes.version(['applications'])).toBe(v2);
  });

  it('recognises every write form, and treats an unknown statement as a write to every table', () => {
    const changes = new TableChanges();
    for (const sql of [
      'delete from "tenants" where "id" = ?',
      'INSERT OR IGNORE INTO tenants (id) VALUES (?)',
      'replace into "tenants" values (?)',
      'update or replace "tenants" set x = 1',
    ]) {
      const before = changes.version(['tenants']);
      changes.noteWrite(sql);
      expect(changes.version(['tenants'])).not.toBe(before);
    }
    const before = changes.version(['reactors']);
    changes.noteWrite('alter table "reactors" add column "x" text');
    expect(changes.version(['reactors'])).not.toBe(before);
  });
});

describe('TableCache', () => {
  it('serves a value only while its tables are unwritten since the version taken before reading it', () => {
    const changes = new TableChanges();
    const cache = new TableCache<string>(changes, ['applications'], 10);
    const version = cache.version();
    changes.noteWrite('update "applications" set x = 1');
    cache.set('k', version, 'stale');
    expect(cache.get('k')).toBeUndefined();
    cache.set('k', cache.version(), 'fresh');
    expect(cache.get('k')).toBe('fresh');
    changes.noteWrite('insert into "tokens" values (?)');
    expect(cache.get('k')).toBe('fresh');
    changes.noteTransactionEnd();
    changes.noteWrite('delete from "applications"');
    expect(cache.get('k')).toBeUndefined();
  });

  it('is cleared when full', () => {
    const cache = new TableCache<number>(new TableChanges(), ['t'], 2);
    cache.set('a', cache.version(), 1);
    cache.set('b', cache.version(), 2);
    cache.set('c', cache.version(), 3);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([undefined, undefined, 3]);
  });
});
