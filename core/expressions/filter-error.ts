/**
 * The one error a filter throws. Its reason is written by us and names only the filter and its
 * arguments, never the value the filter was applied to, so it is safe to put in a 400 body. The engine
 * fills in the filter name from the Liquid filter token when the thrower did not know it.
 */
export class FilterError extends Error {
  filter: string | undefined;

  constructor(
    readonly reason: string,
    filter?: string,
  ) {
    super(reason);
    this.name = 'FilterError';
    this.filter = filter;
  }

  /** `filter 'reveal_last': length is required` */
  describe(): string {
    return this.filter === undefined ? this.reason : `filter '${this.filter}': ${this.reason}`;
  }
}
