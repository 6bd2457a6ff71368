import Fastify, { type FastifyBaseLogger } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceOptions, Services } from '../core/services-contract.ts';
import type { VaultHandle } from '../core/vault/types.ts';
import { createServerServices, urlOf, type ServerTenancyOptions } from './server-services.ts';
import { installAccessControl } from './http/access.ts';
import { ConsoleCookies, httpsHostsOf } from './http/console-cookie.ts';
import { requestRateLimits } from '../core/identity/rate-limiter.ts';
import { installBodyParsers } from './http/body-parsers.ts';
import { hostsOfUrls, installHostCheck } from './http/host-check.ts';
import { handleError, installErrorHandling } from './http/error-handler.ts';
import { installExpressionBudget } from './http/expression-budget.ts';
import { RequestLogController, createServerLogger, type ServerLogger } from './http/logging.ts';
import { echoTraceId, traceIdFor } from './http/trace-id.ts';
import { requestValidation } from './http/validation.ts';
import { registerApiDocsRoutes } from './routes/api-docs.ts';
import { registerApplicationTemplateRoutes } from './routes/application-templates.ts';
import { registerApplicationRoutes } from './routes/applications.ts';
import { registerAuthRoutes } from './routes/auth.ts';
import { registerConsoleRoutes, type ConsoleOptions } from './routes/console.ts';
import { registerDetokenizeRoutes } from './routes/detokenize.ts';
import { registerHealthRoute } from './routes/health.ts';
import { registerInvitationAcceptRoutes } from './routes/invitation-accept.ts';
import { registerLogRoutes } from './routes/logs.ts';
import { registerLogVerifyRoutes } from './routes/log-verify.ts';
import { registerOpenApi } from './routes/openapi.ts';
import { registerOperatorRoutes } from './routes/operator.ts';
import type { OperatorCredential } from './operator-credential.ts';
import { registerPermissionRoutes } from './routes/permissions.ts';
import { registerProxyInvokeRoutes } from './routes/proxy-invoke.ts';
import { registerProxyRoutes } from './routes/proxies.ts';
import { registerReactorFormulaRoutes } from './routes/reactor-formulas.ts';
import { registerReactorRoutes } from './routes/reactors.ts';
import { registerTenantRoutes } from './routes/tenants.ts';
import { TOKEN_ID_MAX_LENGTH } from '../core/tokens/index.ts';
import { registerTokenRoutes } from './routes/tokens.ts';
import { registerTokenAssociationRoutes } from './routes/token-associations.ts';
import { registerInvitationRoutes } from './routes/invitations.ts';
import { registerMemberRoutes } from './routes/members.ts';
import { registerUsageReportRoutes } from './routes/usage-reports.ts';
import { registerVaultHeadroomRoute } from './routes/vault-headroom.ts';
import type { VaultServer } from './types.ts';

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

export interface ServerOptions {
  /** Largest accepted request body in bytes; larger ones get 413. Default 1 MiB. */
  readonly bodyLimit?: number;
  /** A pino logger (the server logs through a child of it) or options for a new one. Default: info to stdout. */
  readonly logger?: ServerLogger;
  /** API version shown in /openapi.json. Default `0.0.0`; the CLI passes the package version. */
  readonly version?: string;
  /** The domain services the routes call. Default `createServices(vault, serviceOptions)`. */
  readonly services?: Services;
  /** Options for the default services (password KDF cost, session lifetime); ignored with `services`. */
  readonly serviceOptions?: ServiceOptions;
  /**
   * Tenant administration (invitation mail, accept links, included monthly active tokens) for the
   * default services; ignored with `services`, and `serviceOptions.tenancy` wins over it. Without
   * `acceptBaseUrl`, links point at this server's own URL + `/invitations/accept` once it listens.
   */
  readonly tenancy?: ServerTenancyOptions;
  /**
   * Host names answered besides IP literals, `localhost` and the host of the accept-link base
   * (publicUrl); other Host headers get 421 (DNS-rebinding defence, see http/host-check.ts).
   */
  readonly allowedHosts?: readonly string[];
  /**
   * Requests per minute per API key, signed-in user, or proxy called without an API key (429 with
   * Retry-After beyond); 0 or absent: no limit. The CLI passes the `rateLimit` setting (default 60,000).
   */
  readonly rateLimit?: number;
  /**
   * The operator credential of this run (server/operator-credential.ts); without it, operator
   * endpoints and SVC-OPERATOR-KEY are refused.
   */
  readonly operatorCredential?: OperatorCredential;
  /** The console under /console/ (built files, one-time sign-in); KDF and session lifetime default to serviceOptions'. */
  readonly console?: ConsoleOptions;
}

/**
 * Builds the HTTP API around an open vault. The instance is returned NOT ready: callers (tests,
 * the desktop shell) may still add routes or plugins, and those get problem responses and appear
 * in /openapi.json like built-in ones. `inject()`, `ready()` and `listen()` finish the setup.
 * The vault stays the caller's: closing the server does not close it.
 *
 * Every route, later ones included, must declare who may call it (`config.access`, see
 * server/http/access.ts); adding a route without a declaration throws.
 */
export async function buildServer(vault: VaultHandle, options: ServerOptions = {}): Promise<VaultServer> {
  // Typed as Fastify's base logger so the instance type does not depend on pino's generics.
  const logger: FastifyBaseLogger = createServerLogger(options.logger);
  const app: VaultServer = Fastify({
    loggerInstance: logger,
    logController: new RequestLogController(),
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    // The request id is the SVC-TRACE-ID; genReqId vets a client-supplied one before adopting it.
    requestIdHeader: false,
    genReqId: traceIdFor,
    // Real clients send `POST /tokens/`. Path parameters are measured decoded, in UTF-16 units: a
    // token id of 400 code points may take 800 (routes/tokens.ts answers longer ones with 404).
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2 * TOKEN_ID_MAX_LENGTH },
    // Requests Fastify rejects before routing (bad URL encoding) still get a problem body.
    frameworkErrors: (error, request, reply) => handleError(error, request, reply),
    // Bodies are never coerced or rewritten; query strings are (see server/http/validation.ts).
    schemaController: requestValidation(),
  }).withTypeProvider<TypeBoxTypeProvider>();

  let services: Services;
  if (options.services === undefined) {
    const built = createServerServices(vault, options.serviceOptions, options.tenancy);
    services = built.services;
    // Accept links defaulting to the server's own URL learn it here (startServer does the same for
    // the services it builds).
    app.addHook('onListen', async () => {
      const address = app.server.address();
      if (address !== null && typeof address === 'object') built.listening(urlOf(address));
    });
  } else {
    services = options.services;
  }

  // Proxy invocations' audit entries wait for a batch to join; closing the server writes them, so
  // they never outlive it into a closed vault.
  app.addHook('onClose', async () => {
    await services.proxyInvoker.settled();
  });
  // Callers get one answer for every refused or unreachable destination; the operator's log says
  // which it was (host and failure class: no path, query or data).
  const stopFailureLog = services.outbound.onFailure(({ host, reason }) =>
    app.log.warn({ destination: host, reason }, 'outbound request failed'),
  );
  app.addHook('onClose', async () => stopFailureLog());
  echoTraceId(app);
  installHostCheck(app, [
    ...(options.allowedHosts ?? []),
    ...hostsOfUrls([
      options.tenancy?.acceptBaseUrl,
      fixedBase(options.serviceOptions?.tenancy?.acceptBaseUrl),
    ]),
  ]);
  installBodyParsers(app);
  installExpressionBudget(app);
  installErrorHandling(app);
  // The console cookie is Secure where the browser reaches the server over TLS: a TLS socket, or
  // the host of an https public URL (TLS ending in a proxy in front).
  const cookies = new ConsoleCookies(
    httpsHostsOf([options.tenancy?.acceptBaseUrl, fixedBase(options.serviceOptions?.tenancy?.acceptBaseUrl)]),
  );
  // One limit for every caller: API keys and users in the access guard, proxy requests in the invoker.
  const limits = requestRateLimits(options.rateLimit, vault.clock);
  // Before any route: its onRoute hook checks and guards every route added after it.
  installAccessControl(app, services, limits, options.operatorCredential ?? null, cookies);
  const publicOrigin = originOf(
    options.tenancy?.acceptBaseUrl ?? fixedBase(options.serviceOptions?.tenancy?.acceptBaseUrl),
  );
  await registerOpenApi(app, {
    version: options.version ?? '0.0.0',
    ...(publicOrigin === undefined ? {} : { publicOrigin }),
  });
  registerApiDocsRoutes(app);
  registerHealthRoute(app, vault);
  registerAuthRoutes(app, services, cookies);
  registerTenantRoutes(app, services);
  registerUsageReportRoutes(app, services);
  registerMemberRoutes(app, services);
  registerInvitationRoutes(app, services);
  registerOperatorRoutes(app, services);
  registerVaultHeadroomRoute(app, services);
  registerInvitationAcceptRoutes(app, services);
  registerApplicationRoutes(app, services);
  registerApplicationTemplateRoutes(app);
  registerPermissionRoutes(app);
  registerLogRoutes(app, services);
  registerLogVerifyRoutes(app, services);
  registerTokenRoutes(app, services);
  registerTokenAssociationRoutes(app, services);
  registerDetokenizeRoutes(app, services);
  registerReactorFormulaRoutes(app, services);
  registerReactorRoutes(app, services);
  registerProxyRoutes(app, services);
  registerProxyInvokeRoutes(app, services, limits);
  registerConsoleRoutes(app, vault, services, cookies, {
    passwordKdf: options.serviceOptions?.passwordKdf,
    sessionTtlMs: options.serviceOptions?.sessionTtlMs,
    ...options.console,
  });
  return app;
}

/** A fixed accept-link base; a late one (a function) is this server's own URL, answered anyway. */
function fixedBase(base: string | (() => string) | undefined): string | undefined {
  return typeof base === 'string' ? base : undefined;
}

/** The origin of the accept-link base (the public URL), when it is a URL. */
function originOf(base: string | undefined): string | undefined {
  if (base === undefined) return undefined;
  try {
    return new URL(base).origin;
  } catch {
    return undefined;
  }
}
