/**
 * JSON Schema pieces (TypeBox) for the shapes of the API that core owns: the schema is the one
 * source, its TypeScript type is derived with `Static<>`, and the HTTP edge declares it as is.
 */
import { Type, type TSchema } from 'typebox';

/** `schema` or null. Shown as `nullable` in the OpenAPI 3.0 document. */
export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

/** A string out of `values`: `{type: string, enum}` (plain for OpenAPI), statically the union. */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string } = {},
) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** A timestamp in responses (ISO 8601, UTC). */
export const Timestamp = Type.String({ format: 'date-time' });

/** `map<string, string>`: an object whose values are strings. */
export function StringMap(
  options: { description?: string; maxProperties?: number; maxValueLength?: number } = {},
) {
  const { maxValueLength, ...rest } = options;
  return Type.Unsafe<Record<string, string>>({
    type: 'object',
    additionalProperties:
      maxValueLength === undefined ? { type: 'string' } : { type: 'string', maxLength: maxValueLength },
    ...rest,
  });
}
