import { describe, expect, it, vi } from 'vitest';
import { onWindowClose, shellMenu, type ShellActions } from './shell-menu.ts';

const actions = (): ShellActions => ({
  showWindow: vi.fn(),
  copyUrl: vi.fn(),
  openLogs: vi.fn(),
  lockVault: vi.fn(),
  setKeepRunningInBackground: vi.fn(),
  quit: vi.fn(),
});

describe('shellMenu', () => {
  it('shows the server status and offers copy URL and lock only while a vault is open', () => {
    const open = shellMenu(
      { open: { path: '/v/vault.svc', url: 'http://127.0.0.1:5000' }, keepRunningInBackground: false },
      actions(),
    );
    expect(open[0]).toMatchObject({ label: 'Serving http://127.0.0.1:5000', enabled: false });
    expect(open.find((i) => i.label === 'Copy server URL')?.enabled).toBe(true);
    expect(open.find((i) => i.label === 'Lock vault')?.enabled).toBe(true);

    const locked = shellMenu({ open: null, keepRunningInBackground: false }, actions());
    expect(locked[0]?.label).toBe('Locked: no vault open');
    expect(locked.find((i) => i.label === 'Copy server URL')?.enabled).toBe(false);
    expect(locked.find((i) => i.label === 'Lock vault')?.enabled).toBe(false);
    expect(locked.find((i) => i.label === 'Open logs')).toBeDefined();
  });

  it('wires each item to its action', () => {
    const a = actions();
    const items = shellMenu(
      { open: { path: '/v', url: 'http://127.0.0.1:1' }, keepRunningInBackground: true },
      a,
    );
    items.find((i) => i.label === 'Lock vault')?.click?.();
    items.find((i) => i.type === 'checkbox')?.click?.();
    expect(a.lockVault).toHaveBeenCalledOnce();
    expect(a.setKeepRunningInBackground).toHaveBeenCalledWith(false);
  });
});

describe('onWindowClose', () => {
  const open = { path: '/v', url: 'http://127.0.0.1:1' };
  it('locks the vault and quits by default; hides when asked to keep serving; quitting always locks', () => {
    expect(onWindowClose({ open, keepRunningInBackground: false }, false)).toBe('lock-and-quit');
    expect(onWindowClose({ open, keepRunningInBackground: true }, false)).toBe('hide');
    expect(onWindowClose({ open, keepRunningInBackground: true }, true)).toBe('lock-and-quit');
    expect(onWindowClose({ open: null, keepRunningInBackground: true }, false)).toBe('close');
  });
});
