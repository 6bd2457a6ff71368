/**
 * Whether a token gets a fingerprint, by the tenant setting `fingerprint_tokens`:
 * - absent or "true": every token is fingerprinted (with its own or its type's default expression);
 * - "false": only a token whose fingerprint expression is not its type's default, i.e. one the
 *   caller chose. Every other token has no fingerprint, so it is never found as a duplicate and
 *   deduplication cannot return it, whatever `deduplicate_tokens` or `deduplicate_token` say.
 * The rule is applied on every write (create, tokenize, update), so an update recomputes it: a token
 * created while the setting was on loses its fingerprint at its next update once it is off.
 */
import { settingEnabled } from '../tenancy/settings.ts';
import type { TokenSpec } from './token-input.ts';

export function fingerprinted(
  settings: Readonly<Record<string, string>>,
  spec: Pick<TokenSpec, 'definition' | 'fingerprintExpression'>,
): boolean {
  return (
    settingEnabled(settings, 'fingerprint_tokens') ||
    spec.fingerprintExpression !== spec.definition.fingerprintExpression
  );
}
