/**
 * JSON Merge Patch (RFC 7386): an object patch merges member by member, `null` removes a member,
 * anything else (arrays, primitives) replaces the target. Pure; never mutates its inputs.
 */
import { isPlainObject } from '../validation/json-value.ts';
import { keyedRecord } from '../validation/keyed-record.ts';

/** The result of applying `patch` to `target`; `undefined` when the patch is `null` (removal). */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null) return undefined;
  if (!isPlainObject(patch)) return patch;
  const result = keyedRecord<unknown>();
  if (isPlainObject(target)) for (const [key, value] of Object.entries(target)) result[key] = value;
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete result[key];
      continue;
    }
    result[key] = mergePatch(result[key], value);
  }
  return result;
}
