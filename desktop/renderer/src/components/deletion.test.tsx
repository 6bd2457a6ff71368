// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../api/client';
import { DeletionDialog, useDeletion } from './deletion';

interface Item {
  readonly id: string;
  readonly name: string;
}

// jsdom has <dialog> without its modal methods; open and close are all these tests need.
beforeAll(() => {
  HTMLDialogElement.prototype.showModal ??= function (this: HTMLDialogElement) {
    this.open = true;
  };
  HTMLDialogElement.prototype.close ??= function (this: HTMLDialogElement) {
    this.open = false;
  };
});
afterEach(cleanup);

function List({ request }: { readonly request: (item: Item) => Promise<unknown> }) {
  const deletion = useDeletion(request, 'items');
  return (
    <>
      <button type="button" onClick={() => deletion.ask({ id: 'i1', name: 'First' })}>
        Delete First
      </button>
      <DeletionDialog deletion={deletion} title="Delete item" confirmLabel="Delete item">
        {(item) => <p>Delete {item.name}?</p>}
      </DeletionDialog>
    </>
  );
}

function renderList(request: (item: Item) => Promise<unknown>) {
  const client = new QueryClient({ defaultOptions: { mutations: { retry: false } } });
  const invalidated = vi.spyOn(client, 'invalidateQueries');
  render(
    <QueryClientProvider client={client}>
      <List request={request} />
    </QueryClientProvider>,
  );
  return { invalidated };
}

describe('DeletionDialog', () => {
  it('asks about the chosen item, deletes it once confirmed, closes and refetches the list', async () => {
    const request = vi.fn(async (_item: Item) => undefined);
    const { invalidated } = renderList(request);
    expect(screen.queryByText('Delete First?')).toBeNull();
    fireEvent.click(screen.getByText('Delete First'));
    expect(screen.getByText('Delete First?')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Delete item' }));
    await waitFor(() => expect(screen.queryByText('Delete First?')).toBeNull());
    expect(request).toHaveBeenCalledWith({ id: 'i1', name: 'First' });
    expect(invalidated).toHaveBeenCalledWith({ queryKey: ['items'] });
  });

  it('keeps the question open with the problem when the deletion fails; Cancel forgets it', async () => {
    const request = vi.fn(async (_item: Item) => {
      throw new ApiError(409, { detail: 'Reactors made from it must be deleted first.' });
    });
    const { invalidated } = renderList(request);
    fireEvent.click(screen.getByText('Delete First'));
    fireEvent.click(screen.getByRole('button', { name: 'Delete item' }));
    expect((await screen.findByRole('alert')).textContent).toBe(
      'Reactors made from it must be deleted first.',
    );
    expect(screen.getByText('Delete First?')).toBeTruthy();
    expect(invalidated).not.toHaveBeenCalled();

    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByText('Delete First?')).toBeNull();
    fireEvent.click(screen.getByText('Delete First'));
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
