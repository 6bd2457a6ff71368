import type { Database as SqlJsDatabase } from 'sql.js';

/**
 * Connection settings, not data: sql.js drops them on export(), so they are set after every load
 * and export. Replay runs with them too, so that cascades happen exactly as they did originally.
 */
export function applyPragmas(sqlite: SqlJsDatabase): void {
  sqlite.exec('PRAGMA foreign_keys = ON');
}
