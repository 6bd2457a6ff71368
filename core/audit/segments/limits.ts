/** When the embedded audit log moves entries out of memory, and how large its files grow. */
export interface AuditSegmentLimits {
  /**
   * Entries left in sql.js before the spiller moves the oldest out: a bound on the audit log's
   * share of the in-memory database (≈ 0.5 KiB an entry), while the newest entries, the ones most
   * listed, stay in the table.
   */
  readonly spillThresholdRows: number;
  /** A segment is rolled (closed for appends, given an index file) once it holds this many bytes. */
  readonly segmentRollBytes: number;
}

export const DEFAULT_AUDIT_SEGMENT_LIMITS: AuditSegmentLimits = {
  spillThresholdRows: 4096,
  segmentRollBytes: 16 * 1024 * 1024,
};
