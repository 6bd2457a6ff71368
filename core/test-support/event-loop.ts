/**
 * Counts the turns of this thread's event loop while `work` runs. Work done on this thread blocks
 * the loop, so it allows hardly a turn; work done in a worker lets it turn freely. Counting turns
 * instead of measuring gaps keeps a test independent of how loaded the machine is.
 */
export async function countTurnsWhile<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let done = false;
  const spin = (): void => {
    if (done) return;
    turns += 1;
    setImmediate(spin);
  };
  setImmediate(spin);
  try {
    const result = await work();
    return { result, turns };
  } finally {
    done = true;
  }
}

/**
 * The longest stretch this thread's event loop went without a turn while `work` ran, in
 * milliseconds: how long one piece of synchronous work (parsing a body, evaluating expressions)
 * held every other request back. Each stretch counts as the smaller of its wall-clock time and the
 * process's CPU time over it, so time the thread spent waiting for a core on a loaded machine does
 * not count, only work done; other threads of the process (GC helpers) can only make it larger.
 */
export async function longestBlockWhile<T>(
  work: () => Promise<T>,
): Promise<{ result: T; longestMs: number }> {
  let longest = 0;
  let done = false;
  let wall = performance.now();
  let cpu = process.cpuUsage();
  const turn = (): void => {
    const nowWall = performance.now();
    const spent = process.cpuUsage(cpu);
    longest = Math.max(longest, Math.min(nowWall - wall, (spent.user + spent.system) / 1000));
    wall = nowWall;
    cpu = process.cpuUsage();
  };
  const spin = (): void => {
    if (done) return;
    turn();
    setImmediate(spin);
  };
  setImmediate(spin);
  try {
    const result = await work();
    // The stretch since the last turn, which ended with the work.
    turn();
    return { result, longestMs: longest };
  } finally {
    done = true;
  }
}
