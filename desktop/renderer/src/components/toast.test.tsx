// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TOAST_MS, ToastProvider, useToast } from './toast';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

function Saver() {
  const toast = useToast();
  return (
    <button type="button" onClick={() => toast('Application saved.')}>
      Save
    </button>
  );
}

describe('toasts', () => {
  it('announce success in a live region and go after a while, or when dismissed', () => {
    vi.useFakeTimers();
    render(
      <ToastProvider>
        <Saver />
      </ToastProvider>,
    );
    const region = screen.getByRole('status');
    expect(region.getAttribute('aria-live')).toBe('polite');
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(region.textContent).toContain('Application saved.');
    act(() => vi.advanceTimersByTime(TOAST_MS));
    expect(region.textContent).toBe('');
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    fireEvent.click(screen.getByRole('button', { name: 'Dismiss' }));
    expect(region.textContent).toBe('');
  });

  it('are a no-op outside a provider', () => {
    render(<Saver />);
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(screen.queryByRole('status')).toBeNull();
  });
});
