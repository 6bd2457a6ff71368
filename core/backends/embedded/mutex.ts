/** A FIFO async mutex: sql.js is one connection, so transactions and reads take turns. */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();
  /** Callers holding or waiting for the turn. */
  private claimed = 0;

  /** Waits for the turn and returns the function that hands it on. */
  async acquire(): Promise<() => void> {
    this.claimed++;
    let release!: () => void;
    const next = new Promise<void>((resolve) => (release = resolve));
    const previous = this.tail;
    this.tail = previous.then(() => next);
    await previous;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.claimed--;
      release();
    };
  }

  /**
   * Runs synchronous `fn` now when nobody holds or waits for the turn (nothing can then run
   * between its start and its end, and nobody is passed over), and returns its result; returns
   * `undefined` without running it otherwise. `fn` must not return `undefined`.
   */
  runIfFree<T>(fn: () => T): T | undefined {
    if (this.claimed !== 0) return undefined;
    return fn();
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await fn();
    } finally {
      release();
    }
  }
}
