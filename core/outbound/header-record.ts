/**
 * Header records keyed by names a client or a destination chose. They are built on a null
 * prototype: on a plain object, reading a header named `constructor` or `toString` finds the
 * prototype's member instead of nothing, and writing `__proto__` replaces the prototype, so such a
 * header would reach the other side garbled or not at all.
 */
/** An empty record for header names from outside. */
export function headerRecord<V extends string | string[]>(): Record<string, V> {
  return Object.create(null) as Record<string, V>;
}

/** Name–value pairs as a record; a repeated name's values gathered, in order, into an array. */
export function gatheredHeaders(
  pairs: Iterable<readonly [string, string]>,
): Record<string, string | string[]> {
  const out = headerRecord<string | string[]>();
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
  const out = headerRecord<string>();
  for (const [name, value] of pairs) {
    const existing = out[name];
    out[name] = existing === undefined ? value : `${existing}, ${value}`;
  }
  return out;
}
