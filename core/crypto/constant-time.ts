import { timingSafeEqual } from 'node:crypto';

/** Compares two secrets (or hashes of secrets) without leaking where they differ. */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  return timingSafeEqual(a, b);
}
