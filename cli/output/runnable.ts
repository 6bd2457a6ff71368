import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import type { Env } from '../../core/config/index.ts';

/**
 * How the person at this terminal runs the CLI: `svc` when it is on their PATH, else `npx svc`
 * (a clone used through npm, where only npm puts `svc` on the PATH of the process it starts).
 * Messages that suggest a command spell it this way, so it can be pasted as it is.
 */
export function svcCommand(env: Env): string {
  // Under `npm run`/`npx` the PATH has node_modules/.bin prepended, which the shell does not have.
  if (env.npm_command !== undefined) return 'npx svc';
  const dirs = (env.PATH ?? '').split(path.delimiter).filter((dir) => dir !== '');
  return dirs.some((dir) => isExecutable(path.join(dir, 'svc'))) ? 'svc' : 'npx svc';
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Rewrites the commands a message suggests ("see 'svc app list'", "run: svc user passwd x") to
 * how this user runs the CLI. Only a `svc ` that starts a quoted or introduced command is touched.
 */
export function runnable(env: Env, text: string): string {
  const command = svcCommand(env);
  if (command === 'svc') return text;
  return text.replace(/(^|['`]|: )svc (?=[a-z])/g, `$1${command} `);
}
