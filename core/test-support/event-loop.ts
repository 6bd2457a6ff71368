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
