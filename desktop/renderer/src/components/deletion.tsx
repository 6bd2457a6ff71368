import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { ConfirmDialog } from './dialog';
import { ProblemAlert } from './states';
import { useToast } from './toast';

/** A deletion the user is asked to confirm: the item asked about, and the request once confirmed. */
export interface Deletion<T> {
  /** The item the confirmation is open for, or null when it is closed. */
  readonly target: T | null;
  readonly ask: (item: T) => void;
  /** Closes the confirmation and forgets the last attempt's error. */
  readonly cancel: () => void;
  readonly confirm: () => void;
  readonly busy: boolean;
  readonly error: Error | null;
}

/**
 * Deletes `item` through `request` once confirmed, then closes the confirmation, says what was
 * done (`done`, a success toast) and refetches the list named `listKey`, so the table never shows a
 * row that is gone.
 */
export function useDeletion<T>(
  request: (item: T) => Promise<unknown>,
  listKey: string,
  done?: (item: T) => string,
): Deletion<T> {
  const queryClient = useQueryClient();
  const toast = useToast();
  const [target, setTarget] = useState<T | null>(null);
  const mutation = useMutation({
    mutationFn: (item: T) => request(item),
    onSuccess: async (_result, item) => {
      setTarget(null);
      if (done !== undefined) toast(done(item));
      await queryClient.invalidateQueries({ queryKey: [listKey] });
    },
  });
  return {
    target,
    ask: setTarget,
    cancel: () => {
      mutation.reset();
      setTarget(null);
    },
    confirm: () => {
      if (target !== null) mutation.mutate(target);
    },
    busy: mutation.isPending,
    error: mutation.error,
  };
}

/** The confirmation of a deletion: what goes away (`children` of the item), Cancel and the action. */
export function DeletionDialog<T>({
  deletion,
  title,
  confirmLabel,
  children,
}: {
  readonly deletion: Deletion<T>;
  readonly title: string;
  readonly confirmLabel: string;
  readonly children: (item: T) => ReactNode;
}) {
  return (
    <ConfirmDialog
      title={title}
      open={deletion.target !== null}
      onCancel={deletion.cancel}
      onConfirm={deletion.confirm}
      confirmLabel={confirmLabel}
      busy={deletion.busy}
    >
      {deletion.target !== null && children(deletion.target)}
      <ProblemAlert error={deletion.error} />
    </ConfirmDialog>
  );
}
