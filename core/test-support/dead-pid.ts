import { spawnSync } from 'node:child_process';

/**
 * The pid of a process that has exited, as a crashed holder's lock file would name. The child is
 * `node --version`, answered before Node starts its engine: a few milliseconds, where a script
 * (`node -e`) costs ≈ 0.15 s of CPU and more than a second on a loaded machine, with the caller's
 * event loop blocked meanwhile.
 */
export function deadPid(): number {
  const child = spawnSync(process.execPath, ['--version']);
  if (child.pid === undefined || child.error !== undefined)
    throw child.error ?? new Error('no child process');
  return child.pid;
}
