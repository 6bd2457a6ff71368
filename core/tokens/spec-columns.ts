/** The stored columns of a token spec (everything but ids, creation and data). */
import type { TokenSpec } from './token-input.ts';

export function specColumns(spec: TokenSpec, fingerprint: string | null) {
  return {
    mask: spec.mask === null ? null : JSON.stringify(spec.mask),
    fingerprint,
    fingerprint_expression: spec.fingerprintExpression,
    container: spec.container,
    metadata: JSON.stringify(spec.metadata),
    search_indexes: JSON.stringify(spec.searchIndexes),
    expires_at: spec.expiry === null ? null : spec.expiry.at.toISOString(),
    expires_offset: spec.expiry === null ? null : spec.expiry.offsetMinutes,
  };
}
