/**
 * Deduplication: off unless the tenant setting `deduplicate_tokens` is
 * "true" or the request says `deduplicate_token: true`; the request flag wins either way. Tokens
 * match by (type, fingerprint) among the tenant's live tokens, so a token without a fingerprint is
 * never a duplicate. The existing token is returned through the caller's `token:read` transform on
 * its container, or redacted when the caller cannot read it there.
 *
 * Public applications never deduplicate: a duplicate answer tells the caller that a token with that
 * data exists, and public keys sit in untrusted clients that could guess card numbers one create at a
 * time. For them the tenant setting does not apply and asking for it is a 403.
 */
import type { Principal } from '../access/principal.ts';
import { VaultError } from '../errors/catalogue.ts';
import { settingEnabled } from '../tenancy/settings.ts';
import { readTransformOn } from './access-scope.ts';
import type { TokenView } from './contract.ts';
import type { TokenRow } from './token-store.ts';
import { redactedDuplicateView, redactedUpdateDuplicateView, shownData, viewOf } from './token-view.ts';

export function deduplicationEnabled(
  principal: Principal,
  settings: Record<string, string>,
  flag: boolean | undefined,
): boolean {
  if (principal.kind === 'application' && principal.applicationType === 'public') {
    if (flag === true) {
      throw new VaultError(
        'FORBIDDEN',
        'Public applications cannot deduplicate tokens: a duplicate would tell the caller that the data exists.',
      );
    }
    return false;
  }
  return flag ?? settingEnabled(settings, 'deduplicate_tokens');
}

/** Which answer a duplicate gets when the caller may not read it (they differ by operation). */
export type DuplicateOf = 'create' | 'update';

/** The existing token as the caller may see it; `open` decrypts only when the transform needs it. */
export async function duplicateView(
  principal: Principal,
  existing: TokenRow,
  open: () => Promise<unknown>,
  of: DuplicateOf,
): Promise<TokenView> {
  const transform = readTransformOn(principal, existing);
  if (transform === null) {
    return of === 'create'
      ? redactedDuplicateView(existing)
      : redactedUpdateDuplicateView(existing, principal);
  }
  return viewOf(existing, await shownData(transform, existing, open), principal);
}
