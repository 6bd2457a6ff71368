import type { FastifyRequest, onRequestHookHandler, RouteOptions } from 'fastify';
import { Type } from 'typebox';
import { authorize } from '../../core/access/authorize.ts';
import { isPermission, isTokenPermission, type Permission } from '../../core/access/permissions.ts';
import { isRequestedView, withView, type Principal } from '../../core/access/principal.ts';
import type { RequestRateLimits } from '../../core/identity/rate-limiter.ts';
import { VaultError, validationError } from '../../core/errors/catalogue.ts';
import type { Services } from '../../core/services-contract.ts';
import type { VaultServer } from '../types.ts';
import { OPERATOR_HEADER, fromLoopback, type OperatorCredential } from '../operator-credential.ts';
import { ConsoleCookies, assertFromConsole } from './console-cookie.ts';
import { isUuid } from './ids.ts';

/**
 * What a route requires of its caller, declared in the route's `config.access`. Every route must
 * declare one: `buildServer` (or the later `app.get(...)`) throws for a route without it, so an
 * endpoint cannot ship without somebody deciding who may call it.
 *
 * - `'public'`: no credential is looked at (health, OpenAPI, sign-in).
 * - `'authenticated'`: any valid credential, an API key or a user session; no tenant needed.
 * - `'session'`: a signed-in user (`Authorization: Bearer <token>`, or the console's cookie); API
 *   keys are refused (403).
 * - `'operator'`: the operator credential only (`SVC-OPERATOR-KEY`, from loopback; see
 *   server/operator-credential.ts): vault-wide actions such as creating a tenant with its owner.
 * - `'console'`: the console's cookie session only, acting in the tenant named by `SVC-TENANT-ID`
 *   as a member (no permission needed; the route decides): the console's own endpoints.
 * - `{ permission }`: a tenant-scoped endpoint. An API key acts in its own tenant; a session acts
 *   in the tenant named by `SVC-TENANT-ID` through the user's membership. Then `authorize`. The
 *   console's cookie session on a token endpoint acts through its token access instead
 *   (core/identity/console-token-access.ts: its session application, or the key its member gave).
 *   `permission` may be a list: the caller must then hold EVERY one of them (resending an
 *   invitation needs `tenant:invitation:create` and `tenant:invitation:update`).
 */
export type AccessDeclaration =
  | 'public'
  | 'authenticated'
  | 'session'
  | 'operator'
  | 'console'
  | { readonly permission: Permission | readonly Permission[] };

/** The permissions a `{ permission }` declaration requires, all of them, as a list. */
export function requiredPermissions(access: {
  readonly permission: Permission | readonly Permission[];
}): Permission[] {
  return typeof access.permission === 'string' ? [access.permission] : [...access.permission];
}

/** The signed-in user behind a session credential. */
export interface UserSession {
  readonly userId: string;
  readonly sessionId: string;
  readonly expiresAt: string;
  /** The credential was the console's cookie (not `Authorization: Bearer`). */
  readonly viaCookie: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call this route; see AccessDeclaration (server/http/access.ts). Required. */
    access?: AccessDeclaration;
    /**
     * The one GET that tells the console its SVC-CSRF value (after a reload it has none), so it
     * cannot require it. Allowed on GET routes only: it must change nothing.
     */
    tellsCsrfToken?: boolean;
  }
  interface FastifyRequest {
    /** The tenant-scoped caller: set on `{ permission }` routes, and on other routes called with an API key. */
    principal: Principal | null;
    /** The signed-in user, when the request carried a session token. */
    userSession: UserSession | null;
  }
}

export const API_KEY_HEADER = 'svc-api-key';
export const TENANT_HEADER = 'svc-tenant-id';
/** How the tenant header is named in problem `errors` and messages. */
const TENANT_HEADER_NAME = 'SVC-TENANT-ID';
/**
 * `mask` asks to be shown token data masked where the caller's grants reveal it (the CLI without
 * `--reveal`); `reveal` or no header: as the grants give it. It never shows more.
 */
export const VIEW_HEADER = 'svc-view';
const VIEW_HEADER_NAME = 'SVC-VIEW';

/**
 * SVC-VIEW as the OpenAPI document lists it, in `schema.headers` of the routes that show token
 * data. A plain string on purpose: `principalOf` checks the value, so a wrong one is the same 400
 * (`errors["SVC-VIEW"]`) on every tenant-scoped route, declared or not.
 */
export const ViewHeaders = Type.Object({
  [VIEW_HEADER]: Type.Optional(
    Type.String({
      description:
        '`mask` shows token data masked where the caller’s grants would reveal it; `reveal` (or no ' +
        'header) shows it as the grants give it. It never shows more. Any other value is a 400.',
    }),
  ),
});

/** OpenAPI security scheme names (components.securitySchemes, see routes/openapi.ts). */
export const SECURITY_SCHEMES = {
  apiKey: 'ApiKey',
  bearer: 'BearerAuth',
  tenant: 'TenantId',
  operator: 'OperatorKey',
  console: 'ConsoleSession',
} as const;

export interface DeclaredRoute {
  readonly method: string;
  readonly url: string;
  readonly access: AccessDeclaration;
}

const declaredRoutes = new WeakMap<object, DeclaredRoute[]>();

/**
 * Every route registered on `app` with its access declaration, HEAD routes included, in
 * registration order. For the authorization matrix test and for tooling.
 */
export function routeAccessTable(app: VaultServer): readonly DeclaredRoute[] {
  return declaredRoutes.get(app) ?? [];
}

/**
 * Installs the access check. Must run before any route is added: the onRoute hook only sees later
 * routes. Authentication and authorization run in an onRequest hook of each protected route, that
 * is before the body is parsed and validated, so an unauthenticated or unauthorized caller learns
 * nothing about request schemas and never makes the server parse a body.
 */
export function installAccessControl(
  app: VaultServer,
  services: Services,
  limits: RequestRateLimits | null = null,
  operator: OperatorCredential | null = null,
  cookies: ConsoleCookies = new ConsoleCookies(),
): void {
  const table: DeclaredRoute[] = [];
  declaredRoutes.set(app, table);
  app.decorateRequest('principal', null);
  app.decorateRequest('userSession', null);
  app.addHook('onRoute', (route) => {
    const access = checkDeclaration(route);
    const tellsCsrf = (route.config as { tellsCsrfToken?: unknown } | undefined)?.tellsCsrfToken === true;
    if (tellsCsrf && [route.method].flat().some((m) => m !== 'GET' && m !== 'HEAD')) {
      throw new Error(
        `Route ${[route.method].flat().join(',')} ${route.url}: only a GET may tell the CSRF value.`,
      );
    }
    for (const method of [route.method].flat()) table.push({ method, url: route.url, access });
    route.schema = { ...route.schema, ...openApiSecurity(access) };
    if (access === 'public') return;
    // A new array: Fastify copies the original options for the automatic HEAD route, and a shared
    // array would then carry the guard twice.
    const existing = route.onRequest === undefined ? [] : [route.onRequest].flat();
    route.onRequest = [...existing, guardFor(access, services, limits, operator, cookies, tellsCsrf)];
  });
}

function checkDeclaration(route: RouteOptions): AccessDeclaration {
  const where = `${[route.method].flat().join(',')} ${route.url}`;
  const access: unknown = (route.config as { access?: unknown } | undefined)?.access;
  if (access === undefined) {
    throw new Error(
      `Route ${where} declares no access. Add config: { access: 'public' | 'authenticated' | 'session' | ` +
        `{ permission: '<resource:action>' | ['<resource:action>', …] } } to it (see "Access declarations" in ` +
        'docs/architecture.md).',
    );
  }
  if (
    access === 'public' ||
    access === 'authenticated' ||
    access === 'session' ||
    access === 'operator' ||
    access === 'console'
  )
    return access;
  if (typeof access === 'object' && access !== null) {
    const permission = (access as { permission?: unknown }).permission;
    if (typeof permission === 'string' && isPermission(permission)) return { permission };
    if (
      Array.isArray(permission) &&
      permission.length > 0 &&
      permission.every((p): p is Permission => typeof p === 'string' && isPermission(p))
    ) {
      // A copy, frozen: the declaration cannot be changed after the check.
      return { permission: Object.freeze([...new Set(permission)]) };
    }
    throw new Error(
      `Route ${where} declares access.permission ${JSON.stringify(permission)}, which is not in the ` +
        'permission catalogue (core/access/permissions.ts), or is an empty list.',
    );
  }
  throw new Error(`Route ${where} declares an unknown access ${JSON.stringify(access)}.`);
}

function openApiSecurity(
  access: AccessDeclaration,
): { security: Array<Record<string, string[]>> } & Record<string, unknown> {
  const { apiKey, bearer, tenant, operator, console } = SECURITY_SCHEMES;
  switch (access) {
    case 'public':
      return { security: [] };
    case 'operator':
      return { security: [{ [operator]: [] }] };
    case 'authenticated':
      return { security: [{ [apiKey]: [] }, { [bearer]: [] }, { [console]: [] }] };
    case 'session':
      return { security: [{ [bearer]: [] }, { [console]: [] }] };
    case 'console':
      return { security: [{ [console]: [], [tenant]: [] }] };
    default: {
      const security: Array<Record<string, string[]>> = [
        { [apiKey]: [] },
        { [bearer]: [], [tenant]: [] },
        { [console]: [], [tenant]: [] },
        { [operator]: [], [tenant]: [] },
      ];
      // One permission: `x-permission`, as every route had so far; several: `x-permissions`, all required.
      return typeof access.permission === 'string'
        ? { security, 'x-permission': access.permission }
        : { security, 'x-permissions': [...access.permission] };
    }
  }
}

type Credential =
  | { readonly kind: 'api-key'; readonly key: string }
  | { readonly kind: 'bearer'; readonly token: string }
  | { readonly kind: 'console-cookie'; readonly token: string };

/**
 * The credential a request presents. `SVC-API-KEY` wins when both it and `Authorization` are sent:
 * proxied requests legitimately carry an `Authorization` header meant for the destination, so the
 * vault never reads `Authorization` next to an API key. A non-Bearer `Authorization` is no credential.
 * The console's cookie is read only when neither header is sent at all, so an API client's
 * request means exactly what it meant before the cookie existed, whatever cookies it carries.
 */
export function credentialOf(request: FastifyRequest, cookies?: ConsoleCookies): Credential | null {
  const key = request.headers[API_KEY_HEADER];
  // A repeated header is its values joined, as Node joins other headers (no array made for one).
  if (key !== undefined) return { kind: 'api-key', key: typeof key === 'string' ? key : key.join(', ') };
  if (request.headers.authorization !== undefined) {
    const token = bearerToken(request);
    return token === null ? null : { kind: 'bearer', token };
  }
  const token = cookies?.read(request) ?? null;
  return token === null ? null : { kind: 'console-cookie', token };
}

const BEARER = /^Bearer +(\S+) *$/i;

/** The session token of `Authorization: Bearer <token>`, or null. */
export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (header === undefined) return null;
  return BEARER.exec(header)?.[1] ?? null;
}

function unauthenticated(detail: string): VaultError {
  return new VaultError('UNAUTHENTICATED', detail);
}

const NO_CREDENTIAL =
  'Send an SVC-API-KEY header with an application key, or Authorization: Bearer <token> with a session token.';

/**
 * `limits` counts every authenticated request against its credential (the application, or the
 * user over all their sessions) before any permission check or body parsing; null for no limit.
 */
function guardFor(
  access: Exclude<AccessDeclaration, 'public'>,
  services: Services,
  limits: RequestRateLimits | null,
  operator: OperatorCredential | null,
  cookies: ConsoleCookies,
  tellsCsrf: boolean,
): onRequestHookHandler {
  const tenantScoped = typeof access === 'object' || access === 'console';
  // A token endpoint called by the console's cookie session acts through its token access.
  const tokenEndpoint = typeof access === 'object' && requiredPermissions(access).some(isTokenPermission);
  return async function guard(request) {
    if (request.headers[OPERATOR_HEADER] !== undefined) {
      await admitOperator(request, access, services, operator);
      return;
    }
    const credential = credentialOf(request, cookies);
    if (credential === null) throw unauthenticated(NO_CREDENTIAL);
    if (credential.kind === 'console-cookie')
      assertFromConsole(request, credential.token, services.auth, tellsCsrf);

    if (credential.kind === 'api-key') {
      const principal = await services.auth.authenticateApiKey(credential.key);
      if (principal === null) throw unauthenticated('The API key is not valid.');
      limits?.take({ kind: 'principal', principal });
      if (access === 'session') {
        throw new VaultError('FORBIDDEN', 'This endpoint is for signed-in users; an API key cannot call it.');
      }
      if (access === 'operator') throw operatorOnly();
      if (access === 'console') throw consoleOnly();
      if (typeof access === 'object') {
        const named = tenantHeader(request);
        if (named !== undefined && named.toLowerCase() !== principal.tenantId.toLowerCase()) {
          throw validationError(
            {
              [TENANT_HEADER_NAME]: ['does not name the tenant of the API key (leave it out with API keys)'],
            },
            'The SVC-TENANT-ID header names another tenant than the API key belongs to.',
          );
        }
        authorizeAll(principal, access);
      }
      request.principal = principal;
      return;
    }

    // A session. Only tenant-scoped routes look at SVC-TENANT-ID; elsewhere it is ignored.
    const named = tenantScoped ? tenantHeader(request) : undefined;
    const wellFormed = named !== undefined && isUuid(named) ? named.toLowerCase() : undefined;
    // The token is checked first, so a bad token is a 401 whatever the tenant header says.
    const session = await services.auth.authenticateSession(credential.token, wellFormed);
    limits?.take({ kind: 'user', userId: session.userId });
    request.userSession = {
      userId: session.userId,
      sessionId: session.sessionId,
      expiresAt: session.expiresAt,
      viaCookie: credential.kind === 'console-cookie',
    };
    if (access === 'operator') throw operatorOnly();
    if (access === 'console' && credential.kind !== 'console-cookie') throw consoleOnly();
    if (!tenantScoped) return;
    if (named === undefined || session.principal === null) {
      throw validationError(
        {
          [TENANT_HEADER_NAME]: [
            named === undefined ? 'is required with a user session' : 'must be a tenant id (UUID)',
          ],
        },
        'Name the tenant to act in with the SVC-TENANT-ID header (a tenant id).',
      );
    }
    if (access === 'console') {
      request.principal = session.principal;
      return;
    }
    if (credential.kind === 'console-cookie' && tokenEndpoint) {
      const acting = await services.consoleTokenAccess.principalFor(session.principal);
      if (acting === null) {
        throw new VaultError(
          'FORBIDDEN',
          'This console session has no token access in this tenant yet: choose it on the Tokens screen ' +
            '(PUT /console/token-access).',
        );
      }
      authorizeAll(acting, access);
      request.principal = acting;
      return;
    }
    authorizeAll(session.principal, access);
    request.principal = session.principal;
  };
}

function consoleOnly(): VaultError {
  return new VaultError(
    'FORBIDDEN',
    "This endpoint is for the console's browser session; API keys and bearer tokens cannot call it.",
  );
}

function operatorOnly(): VaultError {
  return new VaultError(
    'FORBIDDEN',
    "This endpoint is for the vault's operator: send SVC-OPERATOR-KEY with the server's operator credential.",
  );
}

/**
 * A request with the operator credential: valid only from loopback and only while this server runs
 * (each start makes a new one). On tenant-scoped routes the operator acts in the tenant named by
 * SVC-TENANT-ID, which must exist, with every permission (core/access/principal.ts).
 */
async function admitOperator(
  request: FastifyRequest,
  access: Exclude<AccessDeclaration, 'public'>,
  services: Services,
  operator: OperatorCredential | null,
): Promise<void> {
  if (!fromLoopback(request.socket.remoteAddress)) {
    throw new VaultError(
      'FORBIDDEN',
      'The operator credential is accepted only from this machine (loopback).',
    );
  }
  const presented = [request.headers[OPERATOR_HEADER] ?? ''].flat().join(', ');
  if (operator === null || !operator.matches(presented)) {
    throw unauthenticated('The operator credential is not valid (it changes at every start of the server).');
  }
  if (access === 'operator') return;
  if (typeof access !== 'object') {
    throw new VaultError(
      'FORBIDDEN',
      'The operator credential acts on tenant-scoped and operator endpoints only; this one needs an API key or a session.',
    );
  }
  const named = tenantHeader(request);
  if (named === undefined || !isUuid(named)) {
    throw validationError(
      {
        [TENANT_HEADER_NAME]: [
          named === undefined ? 'is required with the operator credential' : 'must be a tenant id (UUID)',
        ],
      },
      'Name the tenant to act in with the SVC-TENANT-ID header (a tenant id).',
    );
  }
  const tenantId = named.toLowerCase();
  // Read directly: the services would audit a read of the tenant on every request.
  const found = await services.vault.db
    .selectFrom('tenants')
    .select('id')
    .where('id', '=', tenantId)
    .executeTakeFirst();
  if (found === undefined) throw new VaultError('NOT_FOUND', `No tenant ${tenantId} in this vault.`);
  request.principal = { kind: 'operator', tenantId };
}

/** Every required permission, in the declared order: the first one missing is the 403. */
function authorizeAll(
  principal: Principal,
  access: { readonly permission: Permission | readonly Permission[] },
): void {
  for (const permission of requiredPermissions(access)) authorize(principal, permission);
}

function tenantHeader(request: FastifyRequest): string | undefined {
  const value = request.headers[TENANT_HEADER];
  return value === undefined ? undefined : [value].flat().join(', ');
}

/**
 * The tenant-scoped principal of a `{ permission }` route, with the view asked for in SVC-VIEW; a
 * route declared otherwise is a bug.
 */
export function principalOf(request: FastifyRequest): Principal {
  if (request.principal === null) {
    throw new Error(
      `Route ${request.routeOptions.url ?? request.url} has no principal: declare a permission.`,
    );
  }
  const view = request.headers[VIEW_HEADER];
  if (view === undefined) return request.principal;
  const named = [view].flat().join(', ');
  if (!isRequestedView(named)) {
    throw validationError(
      { [VIEW_HEADER_NAME]: ['must be mask or reveal'] },
      'The SVC-VIEW header asks for mask or reveal.',
    );
  }
  return withView(request.principal, named);
}

/** The signed-in user of a `'session'` route; a route declared otherwise is a bug. */
export function userSessionOf(request: FastifyRequest): UserSession {
  if (request.userSession === null) {
    throw new Error(
      `Route ${request.routeOptions.url ?? request.url} has no user session: declare 'session'.`,
    );
  }
  return request.userSession;
}
