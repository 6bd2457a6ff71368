/** The Electron entry (package.json "main", compiled to dist/desktop/main/main.js). */
import * as electron from 'electron';
import { runDesktopShell } from './desktop-shell.ts';

void runDesktopShell(electron, { root: electron.app.getAppPath(), env: process.env });
