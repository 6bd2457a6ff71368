/**
 * Detokenizing a proxied request: expressions in its body (JSON, form or text; other media types
 * pass byte for byte) and header values, under one token budget, with the route's grants. A route
 * without a principal (a proxy with no application) refuses any expression.
 */
import { mayHoldExpression, scanText } from '../detokenize/index.ts';
import type { Detokenizer } from '../detokenize/index.ts';
import { VaultError, validationError } from '../errors/catalogue.ts';
import type { BodyKind } from './proxy-request.ts';
import type { Route } from './proxy-route.ts';

function holdsExpression(value: unknown): boolean {
  if (typeof value === 'string')
    return mayHoldExpression(value) && scanText(value, 'request').some((p) => p.kind === 'expression');
  if (Array.isArray(value)) return value.some(holdsExpression);
  if (value !== null && typeof value === 'object') return Object.values(value).some(holdsExpression);
  return false;
}

function asHeaderValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** The body as detokenization walks it: JSON parsed, a form as pairs, text as a string; else null. */
function parsedBody(kind: BodyKind, body: Buffer | null): unknown {
  if (body === null || body.length === 0) return null;
  if (kind === 'json') {
    try {
      return JSON.parse(body.toString('utf8'));
    } catch {
      throw validationError(
        { body: ['is not valid JSON (Content-Type says JSON)'] },
        'Invalid proxy request: the body is not valid JSON.',
      );
    }
  }
  if (kind === 'form') return [...new URLSearchParams(body.toString('utf8'))];
  if (kind === 'text') return body.toString('utf8');
  return null;
}

/** Detokenizes body and header values under one budget; returns the bytes and headers to send. */
export async function detokenizeRequest(
  detokenizer: Detokenizer,
  r: Route,
  kind: BodyKind,
  body: Buffer | null,
  headers: Array<[string, string]>,
): Promise<{ body: Buffer | null; headers: Array<[string, string]> }> {
  const parsed = parsedBody(kind, body);
  const headerValues = headers.map(([, value]) => value);
  const value = { body: parsed, headers: headerValues };
  if (r.principal === null) {
    if (!holdsExpression(value)) return { body, headers };
    throw new VaultError(
      'FORBIDDEN',
      'This proxy has no application, so its requests cannot detokenize tokens.',
    );
  }
  const out = (await detokenizer.detokenize(r.principal, value, {
    permission: 'token:use',
    field: 'request',
    mode: kind === 'json' ? 'json' : 'text',
  })) as { body: unknown; headers: unknown[] };
  // The value itself comes back when it holds no expression, and so does each part that holds
  // none: forwarded as it came.
  if (out === value) return { body, headers };
  const newHeaders =
    out.headers === headerValues
      ? headers
      : headers.map(([name], i): [string, string] => [name, asHeaderValue(out.headers[i])]);
  let newBody: Buffer | null = body;
  if (parsed !== null && out.body !== parsed) {
    if (kind === 'json') newBody = Buffer.from(JSON.stringify(out.body), 'utf8');
    else if (kind === 'form')
      newBody = Buffer.from(new URLSearchParams(out.body as Array<[string, string]>).toString(), 'utf8');
    else newBody = Buffer.from(out.body as string, 'utf8');
  }
  return { body: newBody, headers: newHeaders };
}
