/** A menu item as Electron's Menu.buildFromTemplate takes it (the fields this app uses). */
export interface MenuItemSpec {
  readonly label?: string;
  readonly type?: 'normal' | 'separator' | 'checkbox';
  readonly enabled?: boolean;
  readonly checked?: boolean;
  readonly click?: () => void;
}

export interface ShellState {
  /** The open vault and its server's URL, or null while locked. */
  readonly open: { readonly path: string; readonly url: string } | null;
  /** Closing the window hides it and the server keeps serving local apps. */
  readonly keepRunningInBackground: boolean;
}

export interface ShellActions {
  showWindow(): void;
  copyUrl(): void;
  openLogs(): void;
  lockVault(): void;
  setKeepRunningInBackground(keep: boolean): void;
  quit(): void;
}

/** The tray (and app) menu: server status, copy URL, open logs, lock vault, background mode. */
export function shellMenu(state: ShellState, actions: ShellActions): MenuItemSpec[] {
  const { open } = state;
  return [
    { label: open ? `Serving ${open.url}` : 'Locked: no vault open', enabled: false },
    ...(open ? [{ label: open.path, enabled: false }] : []),
    { type: 'separator' },
    { label: 'Show window', click: actions.showWindow },
    { label: 'Copy server URL', enabled: open !== null, click: actions.copyUrl },
    { label: 'Open logs', click: actions.openLogs },
    { label: 'Lock vault', enabled: open !== null, click: actions.lockVault },
    { type: 'separator' },
    {
      label: 'Keep server running when the window closes',
      type: 'checkbox',
      checked: state.keepRunningInBackground,
      click: () => actions.setKeepRunningInBackground(!state.keepRunningInBackground),
    },
    { label: 'Quit', click: actions.quit },
  ];
}

/**
 * What closing the window does: with a vault open and background mode on, the window hides and
 * the server keeps serving; otherwise the vault is locked (snapshot, lock released) and the app
 * quits. With no vault open the window just closes.
 */
export function onWindowClose(state: ShellState, quitting: boolean): 'hide' | 'lock-and-quit' | 'close' {
  if (state.open === null) return 'close';
  if (state.keepRunningInBackground && !quitting) return 'hide';
  return 'lock-and-quit';
}
