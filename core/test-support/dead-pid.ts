import { spawnSync } from 'node:child_process';

/**
 * The pid of a process that has exited, as a crashed holder's lock file would name. The child is
 * `node --version`, answered before Node starts its engine, where a script (`node -e`) would
 * start all of Node, with the caller's event loop blocked meanwhile (spawnSync).
 */
export function deadPid(): number {
  const child = spawnSync(process.execPath, ['--version']);
  if (child.pid === undefined || child.error !== undefined)
    throw child.error ?? new Error('no child process');
  return child.pid;
}
