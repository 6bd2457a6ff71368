/**
 * `TokenService` (contract.ts) over one open vault, one module per operation: create.ts,
 * tokenize-write.ts, read.ts, list.ts, search.ts, update.ts, delete.ts, expired-tokens.ts. Each
 * takes the shared `TokenOperationDeps` (operation-deps.ts) explicitly.
 *
 * Across them: authorization per container, one audit entry per token touched and monthly
 * activity, all in the transaction that does the work. Token data reaches storage only as a field
 * envelope; fingerprints and blind indexes are keyed hashes with the tenant's own keys
 * (token-crypto.ts). Errors never carry token data.
 */
import type { Principal } from '../access/principal.ts';
import type { TenantKeys } from '../crypto/tenant-keys.ts';
import type { VaultHandle } from '../vault/types.ts';
import type { CreateTokenRequest, CreateTokenResult, TokenService } from './contract.ts';
import { createToken } from './create.ts';
import type { AfterCreate } from './create.ts';
import { deleteToken } from './delete.ts';
import { sweepExpired } from './expired-tokens.ts';
import { listTokens } from './list.ts';
import { tokenOperationDeps } from './operation-deps.ts';
import { getToken } from './read.ts';
import { searchTokens } from './search.ts';
import { tokenize, tokenizeGroups } from './tokenize-write.ts';
import { updateToken } from './update.ts';

export { MAX_TOKEN_PAGE_SIZE } from './token-page.ts';
export { TOKEN_MESSAGES } from './token-audit.ts';

export interface TokenServiceDeps {
  /** The services instance's one TenantKeys (its cache of unwrapped tenant keys). */
  readonly keys: TenantKeys;
}

/** The service as other token features in core use it: creation may carry follow-up work. */
export interface TokenServiceWithHooks extends TokenService {
  create(principal: Principal, request: CreateTokenRequest, after?: AfterCreate): Promise<CreateTokenResult>;
}

export function createTokenService(vault: VaultHandle, options: TokenServiceDeps): TokenServiceWithHooks {
  const deps = tokenOperationDeps(vault, options.keys);
  const groups = tokenizeGroups(deps);
  return {
    create: (principal, request, after) => createToken(deps, principal, request, after),
    tokenize: (principal, body) => tokenize(deps, groups, principal, body),
    get: (principal, id) => getToken(deps, principal, id),
    list: (principal, filter, page) => listTokens(deps, principal, filter, page),
    search: (principal, request) => searchTokens(deps, principal, request),
    update: (principal, id, patch) => updateToken(deps, principal, id, patch),
    delete: (principal, id) => deleteToken(deps, principal, id),
    sweepExpired: () => sweepExpired(vault),
  };
}
