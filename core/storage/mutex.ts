/** A FIFO async mutex: sql.js is one connection, so transactions and reads take turns. */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();

  /** Waits for the turn and returns the function that hands it on. */
  async acquire(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((resolve) => (release = resolve));
    const previous = this.tail;
    this.tail = previous.then(() => next);
    await previous;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      release();
    };
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
