/**
 * Where an invocation goes and on whose behalf: a proxy named by `SVC-PROXY-KEY` (header or
 * `svc-proxy-key` query), else the ephemeral destination of `SVC-PROXY-URL` (a private
 * application's key only, unless the tenant disabled ephemeral proxies). The caller is
 * authenticated here, and counted against the rate limits before anything else is done.
 */
import type { Principal } from '../access/principal.ts';
import { VaultError, validationError } from '../errors/catalogue.ts';
import { destinationUrlProblem } from '../outbound/destination-url.ts';
import { parseSettings, settingEnabled } from '../tenancy/settings.ts';
import { findTenantRow } from '../tenancy/tenant-store.ts';
import type { VaultHandle } from '../vault/types.ts';
import type { Proxy } from './contract.ts';
import { PROXY_KEY_QUERY } from './forwarding.ts';
import type { LoadedProxies } from './loaded-proxies.ts';
import { PROXY_KEY_HEADER, PROXY_URL_HEADER, header, queryValue } from './proxy-request.ts';
import type { ProxyInvocation } from './proxy-request.ts';

export interface Route {
  readonly tenantId: string;
  readonly proxy: Proxy | null;
  readonly base: string;
  /** Whose grants detokenize; null = nobody (any expression is refused). */
  readonly principal: Principal | null;
  /** Who is recorded as the actor of the invocation. */
  readonly actor: Principal | null;
}

/** The caller named by `SVC-API-KEY` (a 401 without one or with an unknown one), counted. */
async function authenticatedCaller(inv: ProxyInvocation): Promise<Principal> {
  const key = header(inv.headers, 'svc-api-key');
  if (key === undefined) {
    throw new VaultError('UNAUTHENTICATED', 'Send an SVC-API-KEY header with an application key.');
  }
  const principal = await inv.authenticate(key);
  if (principal === null) throw new VaultError('UNAUTHENTICATED', 'The API key is not valid.');
  inv.limits?.take({ kind: 'principal', principal });
  return principal;
}

/** The route of a request naming a proxy by its key. */
async function proxyRoute(loaded: LoadedProxies, inv: ProxyInvocation, proxyKey: string): Promise<Route> {
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
  const caller = await authenticatedCaller(inv);
  // A key of another tenant is told apart from an unknown proxy key by nothing.
  if (caller.tenantId !== proxy.tenant_id) throw new VaultError('NOT_FOUND', 'No proxy has this key.');
  return { tenantId: proxy.tenant_id, proxy, base: proxy.destination_url, principal: caller, actor: caller };
}

/** The route of an ephemeral request (`SVC-PROXY-URL`). */
async function ephemeralRoute(vault: VaultHandle, inv: ProxyInvocation): Promise<Route> {
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
  const caller = await authenticatedCaller(inv);
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
    throw validationError({ 'SVC-PROXY-URL': [problem] }, `Invalid proxy request: SVC-PROXY-URL ${problem}.`);
  return { tenantId: caller.tenantId, proxy: null, base: base.trim(), principal: caller, actor: caller };
}

/** Resolves the invocation's route: the proxy (or ephemeral destination) and its caller. */
export async function resolveRoute(
  vault: VaultHandle,
  loaded: LoadedProxies,
  inv: ProxyInvocation,
): Promise<Route> {
  const proxyKey = header(inv.headers, PROXY_KEY_HEADER) ?? queryValue(inv.rawQuery, PROXY_KEY_QUERY);
  return proxyKey !== undefined ? proxyRoute(loaded, inv, proxyKey) : ephemeralRoute(vault, inv);
}
