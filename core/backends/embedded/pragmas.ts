import type { Database as SqlJsDatabase } from 'sql.js';

/**
 * Connection settings, not data: sql.js drops them on export(), so they are set after every load
 * and export. Replay runs with them too, so that cascades happen exactly as they did originally.
 */
export function applyPragmas(sqlite: SqlJsDatabase): void {
  sqlite.exec('PRAGMA foreign_keys = ON');
  // Deleted rows are overwritten with zeros instead of lingering in free pages, so a deleted
  // token's envelope does not ride along into the next snapshot ("data removed permanently").
  sqlite.exec('PRAGMA secure_delete = ON');
  // The database lives in sql.js's in-memory file system and durability comes from our own journal,
  // so SQLite's rollback journal need not be a (copied) file and nothing needs syncing.
  sqlite.exec('PRAGMA journal_mode = MEMORY');
  sqlite.exec('PRAGMA synchronous = OFF');
  sqlite.exec('PRAGMA temp_store = MEMORY');
  // Only this connection ever opens the in-memory file, so it keeps its file lock instead of taking
  // and dropping it around every statement: otherwise each autocommit read re-checks the file for
  // a hot journal and re-reads its header through Emscripten's file system, which costs more than
  // a primary-key lookup itself.
  sqlite.exec('PRAGMA locking_mode = EXCLUSIVE');
}
