/**
 * Base58 (the Bitcoin alphabet: no `0`, `O`, `I`, `l`), for fingerprints. Written here because no
 * base58 package is installed; only encoding is ever needed.
 */
const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
/** Five base-58 digits at a time: 58^5 · 2^16 < 2^53, so every step is exact in a double. */
const FIVE_DIGITS = 58 ** 5;

export function base58(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros += 1;
  // The number as big-endian 16-bit words, divided repeatedly by 58^5: each remainder is five
  // digits. (A digit-by-digit division cost ten times as much; every token is fingerprinted.)
  const words: number[] = [];
  let i = zeros;
  if ((bytes.length - zeros) % 2 === 1) words.push(bytes[i++]!);
  for (; i < bytes.length; i += 2) words.push(bytes[i]! * 256 + bytes[i + 1]!);
  const digits: number[] = []; // little-endian
  let start = 0;
  while (start < words.length) {
    let rem = 0;
    for (let j = start; j < words.length; j += 1) {
      const current = rem * 65536 + words[j]!;
      const quotient = Math.floor(current / FIVE_DIGITS);
      rem = current - quotient * FIVE_DIGITS;
      words[j] = quotient;
    }
    while (start < words.length && words[start] === 0) start += 1;
    for (let k = 0; k < 5; k += 1) {
      digits.push(rem % 58);
      rem = Math.floor(rem / 58);
    }
  }
  while (digits.length > 0 && digits[digits.length - 1] === 0) digits.pop();
  let out = '1'.repeat(zeros);
  for (let k = digits.length - 1; k >= 0; k -= 1) out += ALPHABET[digits[k]!];
  return out;
}
