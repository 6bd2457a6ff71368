/**
 * The one schema of a token as the API returns it: every token endpoint declares it as its
 * response, and core's `TokenView` (contract.ts) is its static type. `data` is absent when the
 * transform redacts it or no mask exists.
 */
import { Type } from 'typebox';
import { Nullable, StringMap, Timestamp } from '../validation/json-schema.ts';
import { PrivacySchema } from './privacy.ts';
import { TOKEN_ID_MAX_LENGTH } from './token-id.ts';

const DATA_DESCRIPTION =
  'Token data, any JSON. Shown through the transform of the caller’s access rules: in plaintext ' +
  '(reveal), as the evaluated mask (mask; absent when the token has no mask) or not at all (redact). ' +
  'Reads use the token:read transform, search the token:search one. Create and tokenize responses use ' +
  'the token:create transform; update responses the stricter of the token:update and token:read ' +
  'transforms (no data without token:read). A plain permission without a rule masks, so these ' +
  'responses are masked unless a rule of the caller reveals for the operation.';

export const TokenSchema = Type.Object(
  {
    id: Type.String({ maxLength: TOKEN_ID_MAX_LENGTH }),
    tenant_id: Type.String({ format: 'uuid' }),
    type: Type.String({ description: 'Token type: token, card, bank, card_number, …' }),
    data: Type.Optional(Type.Unknown({ description: DATA_DESCRIPTION })),
    mask: Type.Optional(
      Type.Unknown({ description: 'The mask expression (a string, or an object/array of them).' }),
    ),
    fingerprint: Type.Optional(
      Type.String({
        description: 'Identifies the contents (keyed hash, base58); equal data → equal fingerprint.',
      }),
    ),
    fingerprint_expression: Type.Optional(Type.String()),
    // An array for the API's shape, holding exactly one container: a token lives in one place.
    containers: Type.Array(Type.String(), { maxItems: 1, description: 'The one container of the token.' }),
    // The older classification view of the container (privacy.ts); absent on a redacted duplicate.
    privacy: Type.Optional(PrivacySchema),
    metadata: Type.Optional(
      StringMap({ description: 'Non-sensitive data only: it is stored in plaintext.' }),
    ),
    search_indexes: Type.Optional(Type.Array(Type.String())),
    // Optional below because a deduplicated token the caller may not read shows only id, type,
    // tenant_id, fingerprint and containers.
    created_by: Type.Optional(Nullable(Type.String())),
    created_at: Type.Optional(Timestamp),
    modified_by: Type.Optional(Nullable(Type.String())),
    modified_at: Type.Optional(Nullable(Timestamp)),
    expires_at: Type.Optional(Nullable(Timestamp)),
  },
  { description: 'A token.' },
);
