/**
 * Deduplication (behaviour reference §3.6): off unless the tenant setting `deduplicate_tokens` is
 * "true" or the request says `deduplicate_token: true`; the request flag wins either way. Tokens
 * match by (type, fingerprint) among the tenant's live tokens, so a token without a fingerprint is
 * never a duplicate. The existing token is returned through the caller's `token:read` transform on
 * its container, or redacted (`redactedView`) when the caller cannot read it there.
 */
import { transformFor } from '../access/authorize.ts';
import type { Principal } from '../access/principal.ts';
import { isVaultError } from '../errors/catalogue.ts';
import { settingEnabled } from '../tenancy/settings.ts';
import type { TokenView } from './contract.ts';
import type { TokenRow } from './token-store.ts';
import { redactedView, shownData, viewOf } from './token-view.ts';

export function deduplicationEnabled(settings: Record<string, string>, flag: boolean | undefined): boolean {
  return flag ?? settingEnabled(settings, 'deduplicate_tokens');
}

/** The existing token as the caller may see it; `open` decrypts only when the transform needs it. */
export async function duplicateView(
  principal: Principal,
  existing: TokenRow,
  open: () => Promise<unknown>,
): Promise<TokenView> {
  let transform;
  try {
    transform = transformFor(principal, 'token:read', existing.container);
  } catch (error) {
    if (isVaultError(error, 'FORBIDDEN')) return redactedView(existing);
    throw error;
  }
  return viewOf(existing, await shownData(transform, existing, open));
}
