import { useEffect, useRef, type ReactNode } from 'react';

/**
 * A modal on the native <dialog>: the browser traps focus inside, Escape closes it, and focus
 * returns to what opened it.
 */
export function Dialog({
  title,
  open,
  onClose,
  children,
  className,
}: {
  readonly title: string;
  readonly open: boolean;
  readonly onClose: () => void;
  readonly children: ReactNode;
  readonly className?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog === null) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} className={className ?? 'dialog'} aria-label={title} onClose={onClose}>
      {open && (
        <>
          <header className="dialog-header">
            <h2>{title}</h2>
            <button type="button" className="ghost" onClick={onClose} aria-label="Close">
              ×
            </button>
          </header>
          {children}
        </>
      )}
    </dialog>
  );
}

/** Asks before something that cannot be undone. */
export function ConfirmDialog({
  title,
  open,
  onCancel,
  onConfirm,
  confirmLabel,
  busy,
  children,
}: {
  readonly title: string;
  readonly open: boolean;
  readonly onCancel: () => void;
  readonly onConfirm: () => void;
  readonly confirmLabel: string;
  readonly busy?: boolean;
  readonly children: ReactNode;
}) {
  return (
    <Dialog title={title} open={open} onClose={onCancel}>
      <div className="dialog-body">{children}</div>
      <footer className="dialog-actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="danger" onClick={onConfirm} disabled={busy === true}>
          {confirmLabel}
        </button>
      </footer>
    </Dialog>
  );
}
