// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../api/client';
import { ResourceTable, type Column, type ListQuery } from './resource-table';

afterEach(cleanup);

interface Row {
  readonly id: string;
  readonly name: string;
}
const COLUMNS: Column<Row>[] = [
  { header: 'Name', cell: (r) => r.name },
  { header: 'Actions', headerHidden: true, cell: (r) => <button type="button">Edit {r.name}</button> },
];

function table(query: ListQuery<{ data: Row[] }>) {
  return render(
    <ResourceTable
      query={query}
      rows={(d) => d.data}
      what="applications"
      empty="No applications yet."
      label="Applications"
      columns={COLUMNS}
      rowKey={(r) => r.id}
    />,
  );
}

describe('ResourceTable', () => {
  it('says what is loading, then shows one row per item', () => {
    const { rerender } = table({ isPending: true, error: null, data: undefined });
    expect(screen.getByRole('status').textContent).toBe('Loading applications…');
    rerender(
      <ResourceTable
        query={{ isPending: false, error: null, data: { data: [{ id: 'a', name: 'Checkout' }] } }}
        rows={(d) => d.data}
        what="applications"
        empty="No applications yet."
        label="Applications"
        columns={COLUMNS}
        rowKey={(r) => r.id}
      />,
    );
    const grid = screen.getByRole('table', { name: 'Applications' });
    expect(grid.querySelectorAll('tbody tr')).toHaveLength(1);
    expect(
      screen.getByRole('columnheader', { name: 'Actions' }).querySelector('.visually-hidden'),
    ).not.toBeNull();
    expect(screen.getByRole('cell', { name: 'Checkout' })).toBeTruthy();
  });

  it('shows the empty state, and a failed request as its problem', () => {
    const { unmount } = table({ isPending: false, error: null, data: { data: [] } });
    expect(screen.getByText('No applications yet.')).toBeTruthy();
    unmount();
    table({ isPending: false, error: new ApiError(403, { detail: 'Forbidden here.' }), data: undefined });
    expect(screen.getByRole('alert').textContent).toBe('Forbidden here.');
    expect(screen.queryByRole('table')).toBeNull();
  });
});
