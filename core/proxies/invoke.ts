/**
 * Runs proxy invocations, step by step: the route (`SVC-PROXY-KEY` header or `svc-proxy-key` query
 * → that proxy, else `SVC-PROXY-URL`) and its caller (proxy-route.ts), detokenization of the body
 * and header values (request-detokenization.ts), the proxy's request transform
 * (proxy-transforms.ts), forwarding under the outbound destination policy, the response transform,
 * and one audit entry per request (invocation-audit.ts). Throws VaultErrors for failures inside the
 * vault (the edge wraps them in `proxy_error`); a destination's own error responses are returned
 * like any other response.
 */
import { TenantKeys } from '../crypto/tenant-keys.ts';
import type { Detokenizer } from '../detokenize/index.ts';
import { isVaultError } from '../errors/catalogue.ts';
import type { OutboundClient } from '../outbound/client.ts';
import { gatheredHeaders } from '../outbound/header-record.ts';
import type { Sandbox } from '../sandbox/index.ts';
import type { TokenService } from '../tokens/contract.ts';
import type { VaultHandle } from '../vault/types.ts';
import { destinationFor, forwardedRequestHeaders, relayedResponseHeaders } from './forwarding.ts';
import { InvocationAudit } from './invocation-audit.ts';
import { LoadedProxies } from './loaded-proxies.ts';
import { ProxySecrets } from './proxy-secrets.ts';
import { DESTINATION_STATUS_HEADER, bodyKindOf, header } from './proxy-request.ts';
import type { ProxyInvocation, ProxyResponse } from './proxy-request.ts';
import { resolveRoute } from './proxy-route.ts';
import { transformRequest, transformResponse } from './proxy-transforms.ts';
import type { CallArgs, OutgoingRequest } from './proxy-transforms.ts';
import { detokenizeRequest } from './request-detokenization.ts';

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

/** Sends `request` to `target`; the destination's answer streams back, its headers as relayed. */
async function forward(outbound: OutboundClient, target: URL, method: string, request: OutgoingRequest) {
  const response = await outbound.stream({
    url: target,
    method,
    headers: gatheredHeaders(request.headers),
    body: request.body === null || request.body.length === 0 ? null : request.body,
  });
  const relayed = relayedResponseHeaders(response.headers);
  relayed[DESTINATION_STATUS_HEADER] = String(response.status);
  return { response, relayed };
}

export function createProxyInvoker(deps: ProxyInvokerDeps) {
  const { vault, detokenizer, outbound } = deps;
  const loaded = new LoadedProxies(vault, new ProxySecrets(deps.keys ?? new TenantKeys(vault)));
  const audit = new InvocationAudit(vault);

  async function invoke(inv: ProxyInvocation): Promise<ProxyResponse> {
    const startedAt = vault.clock.now().getTime();
    const r = await resolveRoute(vault, loaded, inv);
    const target = destinationFor(r.base, inv.path, inv.rawQuery);
    const method = inv.method.toUpperCase();
    const answered = (status: number): void => audit.record(r, target.hostname, method, status, startedAt);
    try {
      const kind = bodyKindOf(header(inv.headers, 'content-type'));
      const sent = await detokenizeRequest(
        detokenizer,
        r,
        kind,
        inv.body,
        forwardedRequestHeaders(inv.headers),
      );
      const call: CallArgs = { method, path: inv.path, query: inv.rawQuery === '' ? '' : `?${inv.rawQuery}` };
      const requestTransform = r.proxy?.request_transform;
      const request =
        r.proxy && requestTransform
          ? await transformRequest(deps, r.proxy, requestTransform, kind, sent, call)
          : sent;
      if ('response' in request) {
        answered(request.response.status);
        return request.response;
      }
      const { response, relayed } = await forward(outbound, target, method, request);
      const responseTransform = r.proxy?.response_transform;
      if (r.proxy && responseTransform && response.status >= 200 && response.status < 300) {
        const transformed = await transformResponse(
          deps,
          r.proxy,
          responseTransform,
          response,
          relayed,
          call,
          target.hostname,
        );
        answered(response.status);
        return transformed;
      }
      answered(response.status);
      return { status: response.status, headers: relayed, body: response.body };
    } catch (error) {
      answered(isVaultError(error) ? error.status : 500);
      throw error;
    }
  }

  return Object.assign(invoke, {
    /** Resolves when every queued invocation audit entry is written. */
    settled: (): Promise<void> => audit.settled(),
  });
}

export type ProxyInvoker = ReturnType<typeof createProxyInvoker>;
