/**
 * A proxy's request and response transforms, run in the sandbox with `req.svc` acting as the
 * proxy's application. A transform returns `{body, headers}` (what is sent on, or answered), or a
 * custom response that answers the caller at once.
 */
import type { Readable } from 'node:stream';
import { VaultError } from '../errors/catalogue.ts';
import type { OutboundStreamResponse } from '../outbound/client.ts';
import { joinedHeaders } from '../outbound/header-record.ts';
import { svcBridge } from '../reactors/svc-bridge.ts';
import type { Sandbox } from '../sandbox/index.ts';
import type { TokenService } from '../tokens/contract.ts';
import type { VaultHandle } from '../vault/types.ts';
import type { Proxy, ProxyTransform } from './contract.ts';
import { proxyApplication } from './loaded-proxies.ts';
import { DESTINATION_STATUS_HEADER, bodyKindOf, bodyOf } from './proxy-request.ts';
import type { BodyKind, ProxyResponse } from './proxy-request.ts';

/** Largest destination body a response transform reads (larger ones fail the request with 502). */
export const RESPONSE_TRANSFORM_MAX_BYTES = 10 * 1024 * 1024;

export interface TransformDeps {
  readonly vault: VaultHandle;
  /** Runs transforms; without one, a proxy with transforms answers 422. */
  readonly sandbox?: Pick<Sandbox, 'runModule'> | undefined;
  /** Behind `req.svc` in transforms (the proxy's application); without it `req.svc` is null. */
  readonly tokens?: TokenService | undefined;
}

/** What a transform sees of the call besides body and headers: `req.args.method/path/query`. */
export interface CallArgs {
  readonly method: string;
  readonly path: string;
  readonly query: string;
}

/** A request on its way to the destination: its bytes and header pairs. */
export interface OutgoingRequest {
  readonly body: Buffer | null;
  readonly headers: Array<[string, string]>;
}

type TransformOutput = { body: unknown; headers: Array<[string, string]> | null };

/** What a transform sees as `req.args.body`: parsed JSON for JSON, else text; null for no body. */
function transformBody(kind: BodyKind, body: Buffer | null): unknown {
  if (body === null || body.length === 0) return null;
  const text = body.toString('utf8');
  if (kind !== 'json') return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** A transform's returned body as bytes: strings as UTF-8, other JSON values serialized, none → no body. */
function bytesOf(body: unknown): Buffer | null {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  return Buffer.from(JSON.stringify(body), 'utf8');
}

/** `{body, headers}` from a transform, checked. Headers the transport owns are dropped. */
function transformOutput(output: unknown): TransformOutput {
  if (typeof output !== 'object' || output === null || Array.isArray(output))
    throw new VaultError('REACTOR_RUNTIME', 'The transform must return an object with body and headers.');
  const { body, headers } = output as { body?: unknown; headers?: unknown };
  if (headers === undefined || headers === null) return { body, headers: null };
  if (typeof headers !== 'object' || Array.isArray(headers))
    throw new VaultError('REACTOR_RUNTIME', 'The transform returned headers that are not an object.');
  const pairs: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(headers as Record<string, unknown>)) {
    if (value === undefined || value === null) continue;
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) continue;
    pairs.push([name, String(value)]);
  }
  return { body, headers: pairs };
}

/** Headers a request transform returned: any valid name (a transform may set what callers cannot), minus transport-owned ones. */
function forwardedTransformHeaders(pairs: Array<[string, string]>): Array<[string, string]> {
  const owned = new Set([
    'host',
    'content-length',
    'expect',
    'connection',
    'keep-alive',
    'transfer-encoding',
    'te',
    'trailer',
    'upgrade',
  ]);
  return pairs.filter(([name]) => !owned.has(name.toLowerCase()) && !name.toLowerCase().startsWith('svc-'));
}

async function readCapped(body: Readable, maxBytes: number, host: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    size += buffer.length;
    if (size > maxBytes) {
      body.destroy();
      throw new VaultError(
        'DESTINATION_UNREACHABLE',
        `${host} answered with more than ${maxBytes} bytes for the response transform.`,
      );
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

/** Runs one transform; a custom response comes back as `{response}`, errors are thrown. */
async function runTransform(
  deps: TransformDeps,
  proxy: Proxy,
  transform: ProxyTransform,
  args: Record<string, unknown>,
): Promise<{ output: TransformOutput } | { response: ProxyResponse }> {
  const { vault, sandbox, tokens } = deps;
  if (sandbox === undefined)
    throw new VaultError('UNPROCESSABLE', 'This proxy has transforms, but this vault runs no sandbox.');
  // `req.svc` acts as the proxy's application, whoever called.
  const app = await proxyApplication(vault.db, vault, proxy.application_id, proxy.tenant_id);
  const svc = app === null || tokens === undefined ? null : svcBridge(tokens, app);
  const outcome = await sandbox.runModule({
    tenant: proxy.tenant_id,
    code: transform.code,
    args,
    configuration: proxy.configuration,
    svc,
  });
  if (outcome.kind === 'problem') throw outcome.error;
  if (outcome.kind === 'custom-response') {
    const body = bytesOf(outcome.body) ?? Buffer.alloc(0);
    const isText = typeof outcome.body === 'string';
    return {
      response: {
        status: outcome.status,
        headers: {
          ...(isText ? {} : { 'content-type': 'application/json' }),
          ...outcome.headers,
        },
        body: bodyOf(body),
      },
    };
  }
  return { output: transformOutput(outcome.output) };
}

/** The request after the proxy's request transform, or the transform's own response. */
export async function transformRequest(
  deps: TransformDeps,
  proxy: Proxy,
  transform: ProxyTransform,
  kind: BodyKind,
  request: OutgoingRequest,
  call: CallArgs,
): Promise<OutgoingRequest | { response: ProxyResponse }> {
  const ran = await runTransform(deps, proxy, transform, {
    body: transformBody(kind, request.body),
    headers: joinedHeaders(request.headers),
    ...call,
  });
  if ('response' in ran) return ran;
  return {
    body: bytesOf(ran.output.body),
    headers: ran.output.headers === null ? request.headers : forwardedTransformHeaders(ran.output.headers),
  };
}

/** The destination's answer after the proxy's response transform (`relayed`: its headers as relayed). */
export async function transformResponse(
  deps: TransformDeps,
  proxy: Proxy,
  transform: ProxyTransform,
  response: OutboundStreamResponse,
  relayed: Record<string, string | string[]>,
  call: CallArgs,
  host: string,
): Promise<ProxyResponse> {
  const raw = await readCapped(response.body, RESPONSE_TRANSFORM_MAX_BYTES, host);
  const responseKind = bodyKindOf([response.headers['content-type'] ?? []].flat()[0]);
  const ran = await runTransform(deps, proxy, transform, {
    body: transformBody(responseKind, raw),
    headers: joinedHeaders(
      Object.entries(relayed).flatMap(([n, v]) => [v].flat().map((item): [string, string] => [n, item])),
    ),
    ...call,
  });
  if ('response' in ran) return ran.response;
  const body = bytesOf(ran.output.body) ?? Buffer.alloc(0);
  const headersOut: Record<string, string | string[]> =
    ran.output.headers === null ? { ...relayed } : Object.fromEntries(ran.output.headers);
  delete headersOut['content-length'];
  delete headersOut['Content-Length'];
  headersOut[DESTINATION_STATUS_HEADER] = String(response.status);
  return { status: response.status, headers: headersOut, body: bodyOf(body) };
}
