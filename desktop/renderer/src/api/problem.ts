/**
 * Problems as the console shows them, apart from the HTTP client so that pages without one (the
 * desktop start screen) and code run outside a page (the import's bench) share them.
 */
import type { Problem } from '../../../../client/api-client.js';

export type { Problem };

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

/** The data of a successful answer; an ApiError carrying the problem otherwise. */
export async function unwrap<T>(
  request: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await request;
  if (!response.ok) {
    const problem: Problem =
      typeof error === 'object' && error !== null ? (error as Problem) : { title: response.statusText };
    throw new ApiError(response.status, problem);
  }
  return data as T;
}
