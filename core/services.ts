import { createLogService } from './audit/log-service.ts';
import { TenantKeys } from './crypto/tenant-keys.ts';
import { createAuthService } from './identity/auth.ts';
import { INTERACTIVE_KDF } from './identity/passwords.ts';
import { DEFAULT_SESSION_TTL_MS } from './identity/sessions.ts';
import type { SignInThrottle } from './identity/sign-in-throttle.ts';
import { createUserService } from './identity/users.ts';
import type { ServiceOptions, Services } from './services-contract.ts';
import { createApplicationService } from './tenancy/applications.ts';
import { createTenantService } from './tenancy/tenants.ts';
import { createTokenService } from './tokens/token-service.ts';
import type { VaultHandle } from './vault/types.ts';

export type { ServiceOptions, Services } from './services-contract.ts';

/** Knobs for tests only; not part of the contract the routes and the CLI code against. */
export interface ServiceInternals {
  readonly throttle?: SignInThrottle;
  readonly delay?: (ms: number) => Promise<void>;
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
  // One cache of unwrapped per-tenant keys for the whole services instance.
  const tenantKeys = new TenantKeys(vault);
  return {
    vault,
    tokens: createTokenService(vault, { keys: tenantKeys }),
    auth: createAuthService(vault, { kdf, sessionTtlMs, ...internals }),
    users: createUserService(vault, kdf),
    tenants: createTenantService(vault, kdf),
    applications: createApplicationService(vault),
    logs: createLogService(vault),
  };
}
