/**
 * JSON Merge Patch (RFC 7386): an object patch merges member by member, `null` removes a member,
 * anything else (arrays, primitives) replaces the target. Pure; never mutates its inputs.
 */
import { isPlainObject } from '../validation/json-value.ts';

/**
 * Sets an own, enumerable property, even one named `__proto__` (JSON.parse creates such own
 * properties; a plain assignment would change the prototype instead).
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The result of applying `patch` to `target`; `undefined` when the patch is `null` (removal). */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null) return undefined;
  if (!isPlainObject(patch)) return patch;
  const result: Record<string, unknown> = {};
  if (isPlainObject(target)) for (const [key, value] of Object.entries(target)) setOwn(result, key, value);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete result[key];
      continue;
    }
    setOwn(result, key, mergePatch(Object.hasOwn(result, key) ? result[key] : undefined, value));
  }
  return result;
}
