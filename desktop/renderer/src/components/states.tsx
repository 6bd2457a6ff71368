import { ApiError } from '../api/problem';

export function Loading({ what }: { readonly what: string }) {
  return (
    <p className="state" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function Empty({ children }: { readonly children: React.ReactNode }) {
  return <p className="state empty">{children}</p>;
}

/**
 * A failed request: the problem's detail as the server wrote it. Forms show field errors at their
 * fields; `withFields` lists them here instead, for requests that have no form (a list's query).
 */
export function ProblemAlert({
  error,
  title,
  withFields,
}: {
  readonly error: unknown;
  readonly title?: string;
  readonly withFields?: boolean;
}) {
  if (error === null || error === undefined) return null;
  const detail =
    error instanceof ApiError
      ? error.message
      : error instanceof Error
        ? error.message
        : 'Something went wrong.';
  const fields =
    withFields === true && error instanceof ApiError ? Object.entries(error.problem.errors ?? {}) : [];
  return (
    <div className="problem" role="alert">
      {title !== undefined && <strong>{title}: </strong>}
      {detail}
      {fields.length > 0 && (
        <ul>
          {fields.flatMap(([field, messages]) =>
            messages.map((m) => (
              <li key={`${field}:${m}`}>
                <code>{field}</code> {m}
              </li>
            )),
          )}
        </ul>
      )}
    </div>
  );
}
