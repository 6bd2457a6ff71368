import { Readable } from 'node:stream';
import { TenantKeys } from '../crypto/tenant-keys.ts';
import type { Principal } from '../access/principal.ts';
import { mayHoldExpression, scanText } from '../detokenize/index.ts';
import type { Detokenizer } from '../detokenize/index.ts';
import type { RequestRateLimits } from '../identity/rate-limiter.ts';
import { VaultError, isVaultError, validationError } from '../errors/catalogue.ts';
import { destinationUrlProblem } from '../outbound/destination-url.ts';
import type { OutboundClient } from '../outbound/client.ts';
import { parseSettings, settingEnabled } from '../tenancy/settings.ts';
import { findTenantRow } from '../tenancy/tenant-store.ts';
import { svcBridge } from '../reactors/svc-bridge.ts';
import type { Sandbox } from '../sandbox/index.ts';
import type { TokenService } from '../tokens/contract.ts';
import { readAuditOf } from '../tokens/read-audit.ts';
import type { VaultHandle } from '../vault/types.ts';
import {
  PROXY_KEY_QUERY,
  destinationFor,
  forwardedRequestHeaders,
  relayedResponseHeaders,
} from './forwarding.ts';
import { proxyInvocationMessage } from './invocation-message.ts';
import { LoadedProxies, proxyApplication } from './loaded-proxies.ts';
import { ProxySecrets } from './proxy-secrets.ts';
import { EPHEMERAL_PROXY_ID, PROXY_ENTITY } from './proxy-store.ts';
import type { Proxy } from './contract.ts';

export const PROXY_KEY_HEADER = 'svc-proxy-key';
export const PROXY_URL_HEADER = 'svc-proxy-url';
export const DESTINATION_STATUS_HEADER = 'svc-proxy-destination-status';

/** One request to `/proxy[/**]`, as the HTTP edge hands it over. */
export interface ProxyInvocation {
  readonly method: string;
  /** The raw (still percent-encoded) path after `/proxy`: '' or starting with '/'. */
  readonly path: string;
  /** The raw query string without `?`. */
  readonly rawQuery: string;
  /** Header name/value pairs as received (case kept, repeats kept). */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: Buffer | null;
  /**
   * Authenticates `SVC-API-KEY` (null for an unknown key). Injected so the proxy uses the same
   * key check as every other route.
   */
  readonly authenticate: (apiKey: string) => Promise<Principal | null>;
  /**
   * The server's request rate limit, or null for none. Counted before anything is opened,
   * detokenized, run, forwarded or audited: per API key (the same bucket as every other route), per
   * proxy for requests without one, and per `clientAddress` for a proxy key this vault does not know.
   */
  readonly limits?: RequestRateLimits | null;
  /** The caller's address, for counting requests that name an unknown proxy key. */
  readonly clientAddress?: string;
}

export interface ProxyResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[]>;
  readonly body: Readable;
}

interface Route {
  readonly tenantId: string;
  readonly proxy: Proxy | null;
  readonly base: string;
  /** Whose grants detokenize; null = nobody (any expression is refused). */
  readonly principal: Principal | null;
  /** Who is recorded as the actor of the invocation. */
  readonly actor: Principal | null;
}

/** Media types whose bodies are detokenized; anything else is forwarded byte for byte. */
export type BodyKind = 'json' | 'form' | 'text' | 'opaque';

export function bodyKindOf(contentType: string | undefined): BodyKind {
  const media = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (media === 'application/json' || media.endsWith('+json')) return 'json';
  if (media === 'application/x-www-form-urlencoded') return 'form';
  if (media.startsWith('text/') || media === 'application/xml' || media.endsWith('+xml')) return 'text';
  return 'opaque';
}

function header(pairs: ReadonlyArray<readonly [string, string]>, name: string): string | undefined {
  const found = pairs.filter(([n]) => n.toLowerCase() === name);
  return found.length === 0 ? undefined : found.map(([, v]) => v).join(', ');
}

function queryValue(rawQuery: string, name: string): string | undefined {
  for (const [key, value] of new URLSearchParams(rawQuery)) if (key.toLowerCase() === name) return value;
  return undefined;
}

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

export interface ProxyInvokerDeps {
  readonly vault: VaultHandle;
  readonly detokenizer: Detokenizer;
  readonly outbound: OutboundClient;
  /** Runs transforms; without one, a proxy with transforms answers 422. */
  readonly sandbox?: Pick<Sandbox, 'runModule'>;
  /** Behind `req.svc` in transforms (the proxy's application); without it `req.svc` is null. */
  readonly tokens?: TokenService;
  /** The tenant keys that open a proxy's sealed configuration and transforms. */
  readonly keys?: TenantKeys;
}

/** Largest destination body a response transform reads (larger ones fail the request with 502). */
export const RESPONSE_TRANSFORM_MAX_BYTES = 10 * 1024 * 1024;

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

function headerObject(pairs: ReadonlyArray<readonly [string, string]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of pairs) out[name] = out[name] === undefined ? value : `${out[name]}, ${value}`;
  return out;
}

/** `{body, headers}` from a transform, checked. Headers the transport owns are dropped. */
function transformOutput(output: unknown): { body: unknown; headers: Array<[string, string]> | null } {
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

/**
 * Runs proxy invocations: routing (`SVC-PROXY-KEY` header or `svc-proxy-key` query → that proxy,
 * else `SVC-PROXY-URL`), authentication, detokenization of the body and header values, forwarding
 * under the outbound destination policy, and one audit entry per request. Throws VaultErrors for
 * failures inside the vault (the edge wraps them in `proxy_error`); a destination's own error
 * responses are returned like any other response.
 */
export function createProxyInvoker(deps: ProxyInvokerDeps) {
  const { vault, detokenizer, outbound, sandbox, tokens } = deps;
  const loaded = new LoadedProxies(vault, new ProxySecrets(deps.keys ?? new TenantKeys(vault)));

  /** Runs one transform; a custom response comes back as `{response}`, errors are thrown. */
  async function runTransform(
    proxy: Proxy,
    code: string,
    args: Record<string, unknown>,
  ): Promise<
    { output: { body: unknown; headers: Array<[string, string]> | null } } | { response: ProxyResponse }
  > {
    if (sandbox === undefined)
      throw new VaultError('UNPROCESSABLE', 'This proxy has transforms, but this vault runs no sandbox.');
    // `req.svc` acts as the proxy's application, whoever called.
    const app = await proxyApplication(vault.db, vault, proxy.application_id, proxy.tenant_id);
    const svc = app === null || tokens === undefined ? null : svcBridge(tokens, app);
    const outcome = await sandbox.runModule({
      tenant: proxy.tenant_id,
      code,
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

  async function callerOf(inv: ProxyInvocation, required: boolean): Promise<Principal | null> {
    const key = header(inv.headers, 'svc-api-key');
    if (key === undefined) {
      if (required)
        throw new VaultError('UNAUTHENTICATED', 'Send an SVC-API-KEY header with an application key.');
      return null;
    }
    const principal = await inv.authenticate(key);
    if (principal === null) throw new VaultError('UNAUTHENTICATED', 'The API key is not valid.');
    inv.limits?.take({ kind: 'principal', principal });
    return principal;
  }

  async function route(inv: ProxyInvocation): Promise<Route> {
    const proxyKey = header(inv.headers, PROXY_KEY_HEADER) ?? queryValue(inv.rawQuery, PROXY_KEY_QUERY);
    if (proxyKey !== undefined) {
      const found = /^[A-Za-z0-9]{1,100}$/.test(proxyKey)
        ? await loaded.byKey(proxyKey, ({ id, requireAuth }) => {
            if (!requireAuth) inv.limits?.take({ kind: 'proxy', proxyId: id });
          })
        : undefined;
      if (!found) {
        inv.limits?.take({ kind: 'address', address: inv.clientAddress ?? '' });
        throw new VaultError('NOT_FOUND', 'No proxy has this key.');
      }
      const { proxy, keyless } = found;
      if (keyless !== undefined) {
        return {
          tenantId: proxy.tenant_id,
          proxy,
          base: proxy.destination_url,
          principal: keyless,
          actor: keyless,
        };
      }
      const caller = (await callerOf(inv, true)) as Principal;
      // A key of another tenant is told apart from an unknown proxy key by nothing.
      if (caller.tenantId !== proxy.tenant_id) throw new VaultError('NOT_FOUND', 'No proxy has this key.');
      return {
        tenantId: proxy.tenant_id,
        proxy,
        base: proxy.destination_url,
        principal: caller,
        actor: caller,
      };
    }
    const base = header(inv.headers, PROXY_URL_HEADER);
    if (base === undefined) {
      throw validationError(
        {
          'SVC-PROXY-URL': [
            'is required unless SVC-PROXY-KEY (or the svc-proxy-key query parameter) names a proxy',
          ],
        },
        'Invalid proxy request: name a proxy with SVC-PROXY-KEY or a destination with SVC-PROXY-URL.',
      );
    }
    const caller = (await callerOf(inv, true)) as Principal;
    if (caller.kind !== 'application' || caller.applicationType !== 'private') {
      throw new VaultError(
        'FORBIDDEN',
        'Ephemeral proxy requests (SVC-PROXY-URL) need the key of a private application.',
      );
    }
    const tenant = await findTenantRow(vault.db, vault, caller.tenantId);
    if (tenant && settingEnabled(parseSettings(tenant.settings), 'disable_ephemeral_proxy')) {
      throw new VaultError(
        'FORBIDDEN',
        'Ephemeral proxy requests are disabled for this tenant (disable_ephemeral_proxy).',
      );
    }
    const problem = destinationUrlProblem(base.trim());
    if (problem !== null)
      throw validationError(
        { 'SVC-PROXY-URL': [problem] },
        `Invalid proxy request: SVC-PROXY-URL ${problem}.`,
      );
    return { tenantId: caller.tenantId, proxy: null, base: base.trim(), principal: caller, actor: caller };
  }

  /** Detokenizes body and header values under one 100-token budget; returns the bytes and headers to send. */
  async function detokenized(
    r: Route,
    kind: BodyKind,
    body: Buffer | null,
    headers: Array<[string, string]>,
  ): Promise<{ body: Buffer | null; headers: Array<[string, string]> }> {
    let parsed: unknown = null;
    if (body !== null && body.length > 0) {
      if (kind === 'json') {
        try {
          parsed = JSON.parse(body.toString('utf8'));
        } catch {
          throw validationError(
            { body: ['is not valid JSON (Content-Type says JSON)'] },
            'Invalid proxy request: the body is not valid JSON.',
          );
        }
      } else if (kind === 'form') {
        parsed = [...new URLSearchParams(body.toString('utf8'))];
      } else if (kind === 'text') {
        parsed = body.toString('utf8');
      }
    }
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
    // The value itself comes back when it holds no expression: forwarded as it came.
    if (out === value) return { body, headers };
    const newHeaders = headers.map(([name], i): [string, string] => [name, asHeaderValue(out.headers[i])]);
    let newBody: Buffer | null = body;
    if (parsed !== null) {
      if (kind === 'json') newBody = Buffer.from(JSON.stringify(out.body), 'utf8');
      else if (kind === 'form')
        newBody = Buffer.from(new URLSearchParams(out.body as Array<[string, string]>).toString(), 'utf8');
      else newBody = Buffer.from(out.body as string, 'utf8');
    }
    return { body: newBody, headers: newHeaders };
  }

  /**
   * The invocation's audit entry joins the vault's read-audit batch (core/tokens/read-audit.ts),
   * the group commit that also writes the detokenizer's `use` entries: one transaction and fsync
   * for everything concurrent requests recorded. The response does not wait for this entry (the
   * `use` entries were durable before anything was forwarded), so it starts no commit of its own:
   * it rides with the next request's `use` entries, or is written within
   * UNAWAITED_ENTRY_DELAY_MS. `settled()` writes every entry recorded so far and resolves once
   * they are written (tests, shutdown).
   */
  const reads = readAuditOf(vault);
  const inFlight = new Set<Promise<void>>();

  function audit(r: Route, host: string, method: string, status: number, startedAt: number): void {
    const durationMs = vault.clock.now().getTime() - startedAt;
    const written = reads
      .recordLater({
        entries: [
          {
            principal: r.actor,
            event: {
              tenantId: r.tenantId,
              entityType: PROXY_ENTITY,
              entityId: r.proxy?.id ?? EPHEMERAL_PROXY_ID,
              operation: 'invoke',
              message: proxyInvocationMessage({ method, host, status, durationMs }),
            },
          },
        ],
      })
      // A lost entry (a tenant deleted meanwhile, a failed disk) cannot change an answer already sent.
      .catch(() => undefined)
      .finally(() => inFlight.delete(written));
    inFlight.add(written);
  }

  async function invoke(inv: ProxyInvocation): Promise<ProxyResponse> {
    const startedAt = vault.clock.now().getTime();
    const r = await route(inv);
    const target = destinationFor(r.base, inv.path, inv.rawQuery);
    const method = inv.method.toUpperCase();
    try {
      const kind = bodyKindOf(header(inv.headers, 'content-type'));
      const sent = await detokenized(r, kind, inv.body, forwardedRequestHeaders(inv.headers));
      let outHeaders = sent.headers;
      let outBody = sent.body;
      const transformArgs = { method, path: inv.path, query: inv.rawQuery === '' ? '' : `?${inv.rawQuery}` };
      if (r.proxy?.request_transform) {
        const ran = await runTransform(r.proxy, r.proxy.request_transform.code, {
          body: transformBody(kind, outBody),
          headers: headerObject(outHeaders),
          ...transformArgs,
        });
        if ('response' in ran) {
          audit(r, target.hostname, method, ran.response.status, startedAt);
          return ran.response;
        }
        outBody = bytesOf(ran.output.body);
        if (ran.output.headers !== null) outHeaders = forwardedTransformHeaders(ran.output.headers);
      }
      const headers: Record<string, string | string[]> = {};
      for (const [name, value] of outHeaders) {
        const existing = headers[name];
        headers[name] = existing === undefined ? value : [existing, value].flat();
      }
      const response = await outbound.stream({
        url: target,
        method,
        headers,
        body: outBody === null || outBody.length === 0 ? null : outBody,
      });
      const relayed = {
        ...relayedResponseHeaders(response.headers),
        [DESTINATION_STATUS_HEADER]: String(response.status),
      };
      if (r.proxy?.response_transform && response.status >= 200 && response.status < 300) {
        const raw = await readCapped(response.body, RESPONSE_TRANSFORM_MAX_BYTES, target.hostname);
        const responseKind = bodyKindOf([response.headers['content-type'] ?? []].flat()[0]);
        const ran = await runTransform(r.proxy, r.proxy.response_transform.code, {
          body: transformBody(responseKind, raw),
          headers: headerObject(
            Object.entries(relayed).flatMap(([n, v]) =>
              [v].flat().map((item): [string, string] => [n, item]),
            ),
          ),
          ...transformArgs,
        });
        audit(r, target.hostname, method, response.status, startedAt);
        if ('response' in ran) return ran.response;
        const body = bytesOf(ran.output.body) ?? Buffer.alloc(0);
        const headersOut: Record<string, string | string[]> =
          ran.output.headers === null ? { ...relayed } : Object.fromEntries(ran.output.headers);
        delete headersOut['content-length'];
        delete headersOut['Content-Length'];
        headersOut[DESTINATION_STATUS_HEADER] = String(response.status);
        return { status: response.status, headers: headersOut, body: bodyOf(body) };
      }
      audit(r, target.hostname, method, response.status, startedAt);
      return { status: response.status, headers: relayed, body: response.body };
    } catch (error) {
      const status = isVaultError(error) ? error.status : 500;
      audit(r, target.hostname, method, status, startedAt);
      throw error;
    }
  }

  return Object.assign(invoke, {
    /** Resolves when every queued invocation audit entry is written. */
    settled: async (): Promise<void> => {
      while (inFlight.size > 0) {
        await reads.flush();
        await Promise.all(inFlight);
      }
    },
  });
}

export type ProxyInvoker = ReturnType<typeof createProxyInvoker>;

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

/** A body for a response built in the vault. */
export function bodyOf(buffer: Buffer): Readable {
  return Readable.from([buffer]);
}
