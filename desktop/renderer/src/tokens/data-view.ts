/**
 * Token data as the Tokens screen prints it: text as it is, anything else as compact JSON (a
 * card's masked object on one line), and null when the answer holds no data (the caller's
 * transform redacts it, or the token has no mask to show).
 */
export function dataText(data: unknown): string | null {
  if (data === undefined || data === null) return null;
  if (typeof data === 'string') return data;
  return JSON.stringify(data);
}

/** The same, laid out for reading (a revealed object over several lines). */
export function dataBlock(data: unknown): string | null {
  if (data === undefined || data === null) return null;
  if (typeof data === 'string') return data;
  return JSON.stringify(data, null, 2);
}
