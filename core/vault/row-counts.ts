/**
 * Row counts of a vault copy (export or import), per table. Apart from the copy itself so that the
 * CLI can total a report without loading the query builder at start.
 */
export type RowCounts = Readonly<Record<string, number>>;

export function totalRows(counts: RowCounts): number {
  return Object.values(counts).reduce((a, b) => a + b, 0);
}
