import {
  VaultError,
  errorCatalogue,
  isVaultError,
  type ErrorCode,
  type FieldErrors,
} from '../../core/errors/catalogue.ts';
import type { Problem } from '../../client/api-client.ts';

/**
 * What a call of the typed client (client/) resolves to: its data on a 2xx, else the problem it
 * parsed. `data` is typed by the operation, so a caller reads the API's own shape.
 */
export interface Answered {
  readonly data?: unknown;
  readonly error?: unknown;
  readonly response: Response;
}

/** The data of a 2xx answer, as the generated types give it. */
export type DataOf<A extends Answered> = Exclude<A['data'], undefined>;

/**
 * How an answer for an id that names nothing reads. `bare`: the catalogue's own "Not found.", which
 * the commands word themselves, naming what was looked for and where. `as-sent`: the API's words,
 * which are core's for the things core names itself (formulas, reactors, proxies).
 */
export type NotFoundWording = 'bare' | 'as-sent';

function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(errorCatalogue, value);
}

/** The catalogue code of an answer without a `code` member: the first code of its status. */
function codeForStatus(status: number): ErrorCode {
  const found = (Object.keys(errorCatalogue) as ErrorCode[]).find(
    (code) => errorCatalogue[code].status === status,
  );
  return found ?? 'INTERNAL';
}

/** The API's answer for an id that names nothing ("No such token."): core's bare NOT_FOUND. */
const NOTHING_NAMED = /^No such [a-z ]+\.$/;

/** The catalogue error a problem answer names, so a command prints and exits as it does in-process. */
export function errorOfProblem(
  response: Response,
  body: unknown,
  notFound: NotFoundWording = 'bare',
): VaultError {
  const problem: Problem = typeof body === 'object' && body !== null ? (body as Problem) : {};
  const code = isErrorCode(problem.code) ? problem.code : codeForStatus(response.status);
  if (code === 'NOT_FOUND' && notFound === 'bare' && NOTHING_NAMED.test(problem.detail ?? ''))
    return new VaultError('NOT_FOUND');
  const detail = problem.detail ?? problem.title ?? `The server answered ${response.status}.`;
  const errors = problem.errors as FieldErrors | undefined;
  return new VaultError(code, detail, errors === undefined ? undefined : { errors });
}

/** A request that got no answer: the transport names the server and why (cli/connection/http-transport.ts). */
export function unreachable(error: unknown): VaultError {
  if (isVaultError(error)) return error;
  return new VaultError('SERVICE_UNAVAILABLE', 'The server could not be reached.', { cause: error });
}

/** The answer itself (its response included); a request that got none throws `unreachable`. */
export async function answered<A extends Answered>(request: Promise<A>): Promise<A> {
  try {
    return await request;
  } catch (error) {
    throw unreachable(error);
  }
}

/** The data of a 2xx answer and its response (status, headers); a problem is thrown as its error. */
export async function answerWithResponse<A extends Answered>(
  request: Promise<A>,
  notFound: NotFoundWording = 'bare',
): Promise<{ data: DataOf<A>; response: Response }> {
  const result = await answered(request);
  if (!result.response.ok) throw errorOfProblem(result.response, result.error, notFound);
  // A 2xx answer carries the operation's data (the client leaves `data` unset only on a problem).
  return { data: result.data as DataOf<A>, response: result.response };
}

/** The data of a typed client call; a problem answer is thrown as the catalogue error it names. */
export async function answer<A extends Answered>(
  request: Promise<A>,
  notFound: NotFoundWording = 'bare',
): Promise<DataOf<A>> {
  return (await answerWithResponse(request, notFound)).data;
}

/** A call whose 2xx carries nothing the caller needs (204 No Content, say). */
export async function acknowledged(
  request: Promise<Answered>,
  notFound: NotFoundWording = 'bare',
): Promise<void> {
  const result = await answered(request);
  if (!result.response.ok) throw errorOfProblem(result.response, result.error, notFound);
}
