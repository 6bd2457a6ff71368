import { basename, dirname, join } from 'node:path';

/**
 * The files of one vault: `vault.svc` (header + snapshot), `vault.journal`, `vault.ack` (the last
 * acknowledged commit), `vault.lock`, and while a background snapshot is being written
 * `vault.journal.prev` (the journal segment that snapshot replaces); `vault.audit/` holds the audit
 * log's segment files (core/audit/segments/).
 */
export interface VaultPaths {
  readonly vault: string;
  readonly journal: string;
  /** The previous journal segment: kept until the snapshot that covers it is on disk. */
  readonly previousJournal: string;
  readonly acknowledged: string;
  readonly lock: string;
  /** The folder of the audit log's segment files. */
  readonly auditSegments: string;
  readonly dir: string;
}

export function vaultPaths(vaultPath: string): VaultPaths {
  const dir = dirname(vaultPath);
  const name = basename(vaultPath);
  const stem = name.endsWith('.svc') ? name.slice(0, -'.svc'.length) : name;
  return {
    vault: vaultPath,
    journal: join(dir, `${stem}.journal`),
    previousJournal: join(dir, `${stem}.journal.prev`),
    acknowledged: join(dir, `${stem}.ack`),
    lock: join(dir, `${stem}.lock`),
    auditSegments: join(dir, `${stem}.audit`),
    dir,
  };
}
