import type { ReactResult } from '../../../core/reactors/contract.ts';
import { answered, errorOfProblem, type Answered } from '../../connection/answer.ts';

/**
 * The headers the server adds to every answer; what is left of a reactor's own response are the
 * headers its code chose.
 */
const SERVER_HEADERS = new Set([
  'cache-control',
  'connection',
  'content-length',
  'date',
  'keep-alive',
  'transfer-encoding',
  'svc-trace-id',
]);

/** The content type the server gives a reactor's response whose code set none. */
const DEFAULT_JSON_TYPE = 'application/json; charset=utf-8';

/** The body of a reactor's own response: JSON when it parses, else the text as sent. */
function bodyOfText(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** A `{raw, tokens}` response, as its members are read (any JSON). */
function isReactResponse(body: unknown): body is { raw?: unknown; tokens?: unknown } {
  return typeof body === 'object' && body !== null;
}

/**
 * A reactor invocation's answer, read as text (the code's own response may be any JSON or none):
 * 200 is the `{raw, tokens}` response; a problem is the error it names (core words "not found" of
 * a reactor itself); anything else is the response the code asked for (CustomHttpResponseError). A
 * custom response with status 200 cannot be told from a plain one here and is read as one.
 */
export async function reactAnswer(request: Promise<Answered>): Promise<ReactResult> {
  const { response, data, error } = await answered(request);
  // The client reads a 2xx as text (parseAs) and parses any other answer as JSON when it can.
  const sent = response.ok ? data : error;
  const body = typeof sent === 'string' ? bodyOfText(sent) : (sent ?? null);
  if (response.status === 200 && isReactResponse(body)) return { kind: 'response', body };
  const type = response.headers.get('content-type') ?? '';
  if (type.startsWith('application/problem+json')) throw errorOfProblem(response, body, 'as-sent');
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (SERVER_HEADERS.has(name)) return;
    if (name === 'content-type' && value === DEFAULT_JSON_TYPE) return;
    headers[name] = value;
  });
  return { kind: 'custom-response', status: response.status, headers, body };
}
