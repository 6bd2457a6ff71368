import { describe, expect, it } from 'vitest';
import { loadSqlJs } from './sqljs.ts';
import { SqlJsConnection } from './sqljs-dialect.ts';

describe('SqlJsConnection.readArrays', () => {
  it('returns each row as its columns in order, bytes as bytes, parameters bound as for run', async () => {
    const SQL = await loadSqlJs();
    const sqlite = new SQL.Database();
    try {
      sqlite.exec(
        "CREATE TABLE t (a TEXT, b INTEGER, c BLOB); INSERT INTO t VALUES ('x', 1, x'0102'), ('y', NULL, NULL)",
      );
      const connection = new SqlJsConnection(sqlite, () => undefined);
      const rows = connection.readArrays('SELECT a, b, c, rowid FROM t WHERE rowid >= ? ORDER BY rowid', [
        true,
      ]);
      expect(rows).toEqual([
        ['x', 1, new Uint8Array([1, 2]), 1],
        ['y', null, null, 2],
      ]);
      expect(connection.readArrays('SELECT a FROM t WHERE b = ?', [5])).toEqual([]);
    } finally {
      sqlite.close();
    }
  });

  it('refuses a write before it runs', async () => {
    const SQL = await loadSqlJs();
    const sqlite = new SQL.Database();
    try {
      sqlite.exec("CREATE TABLE t (a TEXT); INSERT INTO t VALUES ('x')");
      const writes: string[] = [];
      const connection = new SqlJsConnection(sqlite, (sql) => writes.push(sql));
      expect(() => connection.readArrays('DELETE FROM t', [])).toThrow(/reads only/);
      expect(connection.readArrays('SELECT count(*) FROM t', [])).toEqual([[1]]);
      expect(writes).toEqual([]);
    } finally {
      sqlite.close();
    }
  });
});
