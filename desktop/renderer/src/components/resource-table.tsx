import type { ReactNode } from 'react';
import { Empty, Loading, ProblemAlert } from './states';

/** What a list screen needs of a react-query result. */
export interface ListQuery<D> {
  readonly isPending: boolean;
  readonly error: unknown;
  readonly data: D | undefined;
}

/**
 * The states of one request in one place: "Loading …" while it runs, its problem when it fails,
 * else `children(data)`.
 */
export function QueryView<D>({
  query,
  what,
  children,
}: {
  readonly query: ListQuery<D>;
  /** What is loading, for "Loading {what}…". */
  readonly what: string;
  readonly children: (data: D) => ReactNode;
}) {
  if (query.isPending) return <Loading what={what} />;
  if (query.error !== null && query.error !== undefined)
    return <ProblemAlert error={query.error} withFields />;
  if (query.data === undefined) return null;
  return <>{children(query.data)}</>;
}

export interface Column<T> {
  readonly header: string;
  /** Shown to screen readers only (an actions column). */
  readonly headerHidden?: boolean;
  readonly cell: (row: T) => ReactNode;
  readonly className?: string;
}

/**
 * A list screen's table: loading, problem and empty states, then one row per item. Wrapped so a
 * table that cannot fit scrolls on its own instead of widening the page.
 */
export function ResourceTable<D, T>({
  query,
  rows,
  what,
  empty,
  columns,
  rowKey,
  label,
  className,
  footer,
}: {
  readonly query: ListQuery<D>;
  readonly rows: (data: D) => readonly T[];
  readonly what: string;
  readonly empty: ReactNode;
  readonly columns: readonly Column<T>[];
  readonly rowKey: (row: T) => string;
  /** The table's accessible name. */
  readonly label: string;
  readonly className?: string;
  /** Below the table (a pager). */
  readonly footer?: (data: D) => ReactNode;
}) {
  return (
    <QueryView query={query} what={what}>
      {(data) => {
        const items = rows(data);
        if (items.length === 0) return <Empty>{empty}</Empty>;
        return (
          <>
            <div className="table-wrap">
              <table className={className} aria-label={label}>
                <thead>
                  <tr>
                    {columns.map((c) => (
                      <th key={c.header} scope="col" className={c.className}>
                        {c.headerHidden === true ? (
                          <span className="visually-hidden">{c.header}</span>
                        ) : (
                          c.header
                        )}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {items.map((item) => (
                    <tr key={rowKey(item)}>
                      {columns.map((c) => (
                        <td key={c.header} className={c.className}>
                          {c.cell(item)}
                        </td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {footer?.(data)}
          </>
        );
      }}
    </QueryView>
  );
}
