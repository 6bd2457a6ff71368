import { Type, type Static, type TSchema } from 'typebox';

export { Nullable, StringEnum, StringMap, Timestamp } from '../../core/validation/json-schema.ts';

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
