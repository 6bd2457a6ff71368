/**
 * Long work on the event loop, cut into slices: `due()` is called between items of the work and
 * yields one turn to every other request whenever the work has held the loop for `sliceMs` since
 * it last yielded. Keeps a request that is large but allowed (a tokenize of 1000 tokens) from
 * holding the server for longer than a slice at a time; the result does not depend on where the
 * slices fall.
 */
export const EVENT_LOOP_SLICE_MS = 10;

export class EventLoopTurns {
  private since = performance.now();

  constructor(private readonly sliceMs = EVENT_LOOP_SLICE_MS) {}

  /** Yields a turn when the slice is used up; otherwise resolves without waiting for one. */
  async due(): Promise<void> {
    if (performance.now() - this.since < this.sliceMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.since = performance.now();
  }
}
