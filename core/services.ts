import { dirname } from 'node:path';
import { createLogService } from './audit/log-service.ts';
import { TenantKeys } from './crypto/tenant-keys.ts';
import { createDetokenizer } from './detokenize/index.ts';
import { DEFAULT_OUTBOUND_SETTINGS, createOutboundClient, sandboxFetchFrom } from './outbound/index.ts';
import { createProxyInvoker, createProxyService, sandboxTransformChecker } from './proxies/index.ts';
import { createAuthService } from './identity/auth.ts';
import { createConsoleTokenAccessService } from './identity/console-token-access.ts';
import { INTERACTIVE_KDF } from './identity/passwords.ts';
import { DEFAULT_SESSION_TTL_MS } from './identity/sessions.ts';
import { SignInThrottle } from './identity/sign-in-throttle.ts';
import { createUserService } from './identity/users.ts';
import { FIXED_DEFAULTS } from './config/fields.ts';
import { checkSmtpUrl, createMailer } from './mail/mailer.ts';
import { outboxIn } from './mail/outbox-location.ts';
import { createReactorService } from './reactors/reactor-service.ts';
import { createSandbox, type Sandbox } from './sandbox/index.ts';
import type { ServiceOptions, Services } from './services-contract.ts';
import { acceptBaseUrlAt, loopbackOrigin } from './tenancy/accept-link.ts';
import type { TenancyOptions } from './tenancy/contract.ts';
import { createInvitationService } from './tenancy/invitations.ts';
import { createMemberService } from './tenancy/members.ts';
import { DEFAULT_INCLUDED_MONTHLY_ACTIVE_TOKENS, createUsageService } from './tenancy/usage-report.ts';
import { createApplicationService } from './tenancy/applications.ts';
import { createTenantService } from './tenancy/tenants.ts';
import { createTokenAssociationService } from './tokens/associations.ts';
import { createTokenService } from './tokens/token-service.ts';
import type { VaultHandle } from './vault/types.ts';

export type { ServiceOptions, Services } from './services-contract.ts';

/** The sender and the link port of the configuration's defaults (core/config/fields.ts). */
export const DEFAULT_MAIL_FROM = FIXED_DEFAULTS.mailFrom;
export const DEFAULT_ACCEPT_BASE_URL = acceptBaseUrlAt(loopbackOrigin(FIXED_DEFAULTS.port));

/**
 * The tenancy options when the caller gives none: an outbox folder next to the vault file. A vault
 * in a database has no folder of its own, so there the caller must say where mail goes (the CLI
 * always does: `<home>/outbox` or SMTP); no folder is ever made from a database URL.
 */
export function defaultTenancyOptions(vault: Pick<VaultHandle, 'backend' | 'path'>): TenancyOptions {
  if (vault.backend !== 'embedded') {
    throw new RangeError(
      'A vault in a database has no folder beside it: pass tenancy.mail to createServices',
    );
  }
  return outboxTenancyOptions(dirname(vault.path));
}

/** Invitation mail as .eml files in `<dir>/outbox`, accept links to the default local server. */
export function outboxTenancyOptions(dir: string): TenancyOptions {
  return {
    mail: { kind: 'outbox', dir: outboxIn(dir), from: DEFAULT_MAIL_FROM },
    acceptBaseUrl: DEFAULT_ACCEPT_BASE_URL,
  };
}

/** An accept-link base must be an absolute http(s) URL; returns it checked. */
function checkAcceptBaseUrl(value: string): string {
  let base: URL;
  try {
    base = new URL(value);
  } catch {
    throw new RangeError('acceptBaseUrl must be an absolute http(s) URL');
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:')
    throw new RangeError('acceptBaseUrl must be an absolute http(s) URL');
  return value;
}

/** Checks the options; returns the included monthly active tokens and the accept-link base, read per link. */
function checkTenancyOptions(tenancy: TenancyOptions): { included: number; acceptBaseUrl: () => string } {
  const base = tenancy.acceptBaseUrl;
  // A fixed base is checked now, a late one each time it is read.
  let acceptBaseUrl: () => string;
  if (typeof base === 'string') {
    const checked = checkAcceptBaseUrl(base);
    acceptBaseUrl = () => checked;
  } else {
    acceptBaseUrl = () => checkAcceptBaseUrl(base());
  }
  if (tenancy.mail.kind === 'smtp') checkSmtpUrl(tenancy.mail.url);
  if (typeof tenancy.mail.from !== 'string' || tenancy.mail.from.trim() === '')
    throw new RangeError('the mail from-address is required');
  const included = tenancy.includedMonthlyActiveTokens ?? DEFAULT_INCLUDED_MONTHLY_ACTIVE_TOKENS;
  if (!Number.isSafeInteger(included) || included < 0)
    throw new RangeError('includedMonthlyActiveTokens must be a whole number ≥ 0');
  return { included, acceptBaseUrl };
}

/** Knobs for tests only; not part of the contract the routes and the CLI code against. */
export interface ServiceInternals {
  readonly throttle?: SignInThrottle;
  /**
   * The sandbox to use instead of a new one made from `options.sandbox` (the CLI command tests share
   * one per process: starting a pool's threads is costly next to a command test). Closing the reactor
   * service closes it, so the caller passes one whose close() it decides on.
   */
  readonly sandbox?: Sandbox;
}

/**
 * The domain services over one open vault. Cheap to build; the sign-in throttle and the cache of
 * unwrapped tenant keys live in the returned object, so a process should build one and keep it.
 */
export function createServices(
  vault: VaultHandle,
  options: ServiceOptions = {},
  internals: ServiceInternals = {},
): Services {
  const kdf = options.passwordKdf ?? INTERACTIVE_KDF;
  const sessionTtlMs = options.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS;
  if (!Number.isSafeInteger(sessionTtlMs) || sessionTtlMs <= 0) {
    throw new RangeError('sessionTtlMs must be a positive number of milliseconds');
  }
  const tenancy = options.tenancy ?? defaultTenancyOptions(vault);
  const { included, acceptBaseUrl } = checkTenancyOptions(tenancy);
  const mailer = createMailer(tenancy.mail, () => vault.clock.now());
  // One cache of unwrapped per-tenant keys for the whole services instance.
  const tenantKeys = new TenantKeys(vault);
  // One throttle for every password check against an existing account (sign-in, invitation accept).
  const throttle = internals.throttle ?? new SignInThrottle(vault.clock);
  const tokens = createTokenService(vault, { keys: tenantKeys });
  const detokenizer = createDetokenizer(vault, tenantKeys);
  const outbound = options.outbound ?? createOutboundClient(DEFAULT_OUTBOUND_SETTINGS);
  // One sandbox for reactors and proxy transforms; its worker threads start on first use.
  const sandbox =
    internals.sandbox ?? createSandbox({ fetch: sandboxFetchFrom(outbound), ...options.sandbox });
  return {
    vault,
    tokens,
    tokenAssociations: createTokenAssociationService(vault, tokens),
    auth: createAuthService(vault, { kdf, sessionTtlMs, throttle }),
    users: createUserService(vault, kdf),
    tenants: createTenantService(vault, kdf),
    applications: createApplicationService(vault),
    logs: createLogService(vault),
    members: createMemberService(vault),
    invitations: createInvitationService(vault, {
      mailer,
      acceptBaseUrl,
      kdf,
      throttle,
    }),
    usage: createUsageService(vault, included),
    detokenizer,
    outbound,
    sandbox,
    proxies: createProxyService(vault, {
      checkTransform: sandboxTransformChecker(sandbox),
      keys: tenantKeys,
    }),
    proxyInvoker: createProxyInvoker({ vault, detokenizer, outbound, sandbox, tokens, keys: tenantKeys }),
    reactors: createReactorService(vault, { tokens, detokenizer, sandbox, keys: tenantKeys }),
    consoleTokenAccess: createConsoleTokenAccessService(vault, tokens),
  };
}
