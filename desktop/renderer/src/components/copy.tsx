import { useEffect, useState } from 'react';
import { useToast } from './toast';

/** How long a copy button says "Copied" before it reads "Copy" again. */
const COPIED_FOR_MS = 2_000;
/** Ids longer than this (and a few more) are shown cut to about this many characters (styles.css: `code.short`). */
const SHORT_ID_LENGTH = 8;

/**
 * Puts `text` on the clipboard. The Clipboard API needs a secure context (https, or the loopback the
 * vault serves on by default); elsewhere the older copy command on a selected, off-screen field does.
 */
export async function copyText(text: string): Promise<void> {
  if (typeof navigator !== 'undefined' && navigator.clipboard !== undefined && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const field = document.createElement('textarea');
  field.value = text;
  field.setAttribute('readonly', '');
  field.className = 'visually-hidden';
  document.body.append(field);
  field.select();
  try {
    if (!document.execCommand('copy')) throw new Error('The browser refused to copy.');
  } finally {
    field.remove();
  }
}

/** A button that copies `value`; `label` names what it copies for screen readers ("Copy the id of …"). */
export function CopyButton({ value, label }: { readonly value: string; readonly label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  // The button's own text changes too, but its name is its label: the toast is what is read out.
  const toast = useToast();
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), COPIED_FOR_MS);
    return () => clearTimeout(timer);
  }, [state]);
  return (
    <button
      type="button"
      className="copy"
      aria-label={label}
      title={label}
      onClick={() =>
        void copyText(value).then(
          () => {
            setState('copied');
            toast('Copied to the clipboard.');
          },
          () => setState('failed'),
        )
      }
    >
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Not copied' : 'Copy'}
    </button>
  );
}

/**
 * An id as tables show it: its first characters, cut by CSS with an ellipsis, while the page holds
 * the whole id (read by screen readers, found by search, shown on hover), and a copy button that
 * copies the full value. `full` shows it whole (details, dialogs).
 */
export function Id({
  value,
  of,
  full = false,
}: {
  readonly value: string;
  /** What the id belongs to, for the copy button's name: "Copy the id of {of}". */
  readonly of: string;
  readonly full?: boolean;
}) {
  const shortened = !full && value.length > SHORT_ID_LENGTH + 4;
  return (
    <span className="id">
      <code className={shortened ? 'short' : undefined} title={value}>
        {value}
      </code>
      <CopyButton value={value} label={`Copy the id of ${of}`} />
    </span>
  );
}
