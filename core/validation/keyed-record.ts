/**
 * A record whose keys come from outside: header names, metadata keys. It has no prototype. On a
 * plain object, reading a key such as `constructor` or `toString` finds the prototype's member
 * instead of nothing, and writing `__proto__` replaces the prototype instead of adding a key, so
 * such a key would be garbled or silently lost; here each is a key like any other.
 */
export function keyedRecord<V>(): Record<string, V> {
  return Object.create(null) as Record<string, V>;
}
