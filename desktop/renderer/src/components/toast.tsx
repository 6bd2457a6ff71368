import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';

/** How long a success message stays on screen. */
export const TOAST_MS = 6_000;

interface Toast {
  readonly id: number;
  readonly message: string;
}

const ToastContext = createContext<((message: string) => void) | null>(null);

/**
 * Success messages ("Application saved.") in one live region at the bottom of the screen: read out
 * by screen readers, gone after a few seconds or when dismissed. Failures are not toasts: they stay
 * at the form or field they concern until fixed.
 */
export function ToastProvider({ children }: { readonly children: ReactNode }) {
  const [toasts, setToasts] = useState<readonly Toast[]>([]);
  const dismiss = useCallback((id: number) => setToasts((all) => all.filter((t) => t.id !== id)), []);
  const show = useCallback((message: string) => {
    setToasts((all) => [...all.slice(-2), { id: Date.now() + Math.random(), message }]);
  }, []);
  return (
    <ToastContext.Provider value={show}>
      {children}
      <div className="toasts" role="status" aria-live="polite">
        {toasts.map((t) => (
          <ToastItem key={t.id} toast={t} onDismiss={dismiss} />
        ))}
      </div>
    </ToastContext.Provider>
  );
}

function ToastItem({
  toast,
  onDismiss,
}: {
  readonly toast: Toast;
  readonly onDismiss: (id: number) => void;
}) {
  useEffect(() => {
    const timer = setTimeout(() => onDismiss(toast.id), TOAST_MS);
    return () => clearTimeout(timer);
  }, [toast.id, onDismiss]);
  return (
    <div className="toast">
      <span>{toast.message}</span>
      <button type="button" className="ghost" aria-label="Dismiss" onClick={() => onDismiss(toast.id)}>
        ×
      </button>
    </div>
  );
}

/** Shows a success message; a no-op outside a ToastProvider (a component tested on its own). */
export function useToast(): (message: string) => void {
  const show = useContext(ToastContext);
  return useMemo(() => show ?? (() => undefined), [show]);
}
