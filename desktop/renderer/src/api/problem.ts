/**
 * Problems as the console shows them, apart from the HTTP client so that pages without one (the
 * desktop start screen) share the same components.
 */
/** An RFC 9457 problem as the server answers it (`errors`: field → messages). */
export interface Problem {
  readonly type?: string;
  readonly title?: string;
  readonly status?: number;
  readonly detail?: string;
  readonly errors?: Readonly<Record<string, readonly string[]>>;
}

/** A failed request: the status and the server's problem, shown as they are. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem,
  ) {
    super(problem.detail ?? problem.title ?? `The server answered ${status}.`);
  }

  /** The server's messages for one field, empty when it named none. */
  fieldErrors(field: string): readonly string[] {
    return this.problem.errors?.[field] ?? [];
  }
}

/** Messages for `field` when `error` is a problem that names it. */
export function fieldErrorsOf(error: unknown, field: string): readonly string[] {
  return error instanceof ApiError ? error.fieldErrors(field) : [];
}
