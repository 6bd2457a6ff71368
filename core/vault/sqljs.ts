import initSqlJs from 'sql.js';
import type { SqlJsStatic } from 'sql.js';

let loading: Promise<SqlJsStatic> | undefined;

/** The sql.js WASM module, loaded once per process. */
export function loadSqlJs(): Promise<SqlJsStatic> {
  loading ??= initSqlJs();
  return loading;
}
