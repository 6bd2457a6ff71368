/** Header records from name–value pairs, keyed by names a client or a destination chose. */
import { keyedRecord } from '../validation/keyed-record.ts';

/** Name–value pairs as a record; a repeated name's values gathered, in order, into an array. */
export function gatheredHeaders(
  pairs: Iterable<readonly [string, string]>,
): Record<string, string | string[]> {
  const out = keyedRecord<string | string[]>();
  for (const [name, value] of pairs) {
    const existing = out[name];
    if (existing === undefined) out[name] = value;
    else if (typeof existing === 'string') out[name] = [existing, value];
    else existing.push(value);
  }
  return out;
}

/**
 * Name–value pairs as a record of one string per name; a repeated name's values joined with
 * ", ", which HTTP reads as the same list.
 */
export function joinedHeaders(pairs: Iterable<readonly [string, string]>): Record<string, string> {
  const out = keyedRecord<string>();
  for (const [name, value] of pairs) {
    const existing = out[name];
    out[name] = existing === undefined ? value : `${existing}, ${value}`;
  }
  return out;
}
