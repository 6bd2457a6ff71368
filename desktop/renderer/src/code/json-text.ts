/** JSON typed by a user: the object it holds, or why it is not one (shown before any request). */
export type JsonObjectResult =
  | { readonly ok: true; readonly value: Record<string, unknown> }
  | { readonly ok: false; readonly message: string };

export function parseJsonObject(text: string): JsonObjectResult {
  if (text.trim() === '') return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : 'not JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, message: 'must be a JSON object ({ … })' };
  return { ok: true, value: value as Record<string, unknown> };
}

/** Pretty JSON for showing an answer. */
export function pretty(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? 'null';
}
