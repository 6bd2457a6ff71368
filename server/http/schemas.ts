import { Type, type Static, type TSchema } from 'typebox';
import { PERSON_NAME_MAX } from '../../core/identity/users.ts';

import { Nullable, Timestamp } from '../../core/validation/json-schema.ts';

export { Nullable, StringEnum, StringMap, Timestamp } from '../../core/validation/json-schema.ts';

/** A person's names in a request body: each optional, 1 to PERSON_NAME_MAX characters. */
export const PersonNameFields = {
  first_name: Type.Optional(Type.String({ minLength: 1, maxLength: PERSON_NAME_MAX })),
  last_name: Type.Optional(Type.String({ minLength: 1, maxLength: PERSON_NAME_MAX })),
};

/** Who created and last changed a record, and when: the fields every stored resource shows. */
export const ChangeStamps = {
  created_by: Nullable(Type.String()),
  created_at: Timestamp,
  modified_by: Nullable(Type.String()),
  modified_at: Nullable(Timestamp),
};

/**
 * `schema` or null in a REQUEST schema, written as a type list (`type: [t, 'null']`) rather than
 * `Nullable`'s `anyOf`: query strings are coerced (server/http/validation.ts), and in an `anyOf`
 * the first branch would coerce `null` away, while a type list coerces only when no listed type
 * matches. `schema` must have a single `type`. Shown as `nullable` in the OpenAPI 3.0 document.
 * Routes treat `null` on such an optional field as "not given" unless the field documents
 * otherwise (merge-patch removals).
 */
export function NullableInput<T extends TSchema>(schema: T) {
  const { type } = schema as { type?: unknown };
  if (typeof type !== 'string') throw new TypeError('NullableInput needs a schema with a single type');
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [type, 'null'] });
}
