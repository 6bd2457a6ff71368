// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CopyButton, Id } from './copy';
import { ToastProvider } from './toast';

const ID = '0190f3a2-7c4e-7d11-9b2a-5e6f7a8b9c0d';

let copied: string[];
beforeEach(() => {
  copied = [];
  Object.defineProperty(window, 'isSecureContext', { value: true, configurable: true });
  Object.defineProperty(navigator, 'clipboard', {
    value: { writeText: async (text: string) => void copied.push(text) },
    configurable: true,
  });
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('Id', () => {
  it('shows the start of a long id, the whole id on hover and to screen readers, and copies it whole', async () => {
    render(
      <ToastProvider>
        <Id value={ID} of="Checkout backend" />
      </ToastProvider>,
    );
    // The page holds the whole id; styles.css cuts `code.short` to its start with an ellipsis.
    const code = screen.getByTitle(ID);
    expect(code.textContent).toBe(ID);
    expect(code.className).toBe('short');
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Copy the id of Checkout backend' }));
    });
    expect(copied).toEqual([ID]);
    expect(screen.getByRole('button', { name: 'Copy the id of Checkout backend' }).textContent).toBe(
      'Copied',
    );
    expect(screen.getByRole('status').textContent).toContain('Copied to the clipboard.');
  });

  it('shows a short id or a full one as it is', () => {
    render(
      <>
        <Id value="ephemeral" of="the proxy" />
        <Id value={ID} of="the tenant" full />
      </>,
    );
    expect(screen.getByTitle('ephemeral').className).toBe('');
    expect(screen.getByTitle(ID).className).toBe('');
  });
});

describe('CopyButton', () => {
  it('says so when the browser refuses to copy, and reads "Copy" again after a moment', async () => {
    vi.useFakeTimers();
    Object.defineProperty(navigator, 'clipboard', {
      value: { writeText: () => Promise.reject(new Error('denied')) },
      configurable: true,
    });
    render(<CopyButton value="secret" label="Copy key" />);
    const button = screen.getByRole('button', { name: 'Copy key' });
    await act(async () => {
      fireEvent.click(button);
    });
    expect(button.textContent).toBe('Not copied');
    act(() => vi.advanceTimersByTime(2_000));
    expect(button.textContent).toBe('Copy');
  });
});
