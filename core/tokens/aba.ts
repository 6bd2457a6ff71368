/**
 * ABA routing transit number checksum: nine digits d1…d9 with
 * 3·(d1+d4+d7) + 7·(d2+d5+d8) + (d3+d6+d9) ≡ 0 (mod 10).
 */
const WEIGHTS = [3, 7, 1, 3, 7, 1, 3, 7, 1] as const;

export function abaRoutingValid(value: string): boolean {
  if (!/^\d{9}$/.test(value)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i += 1) sum += (value.charCodeAt(i) - 48) * (WEIGHTS[i] ?? 0);
  return sum % 10 === 0;
}

/** The ninth digit that makes the first eight a valid routing number (for tests and fixtures). */
export function abaCheckDigit(firstEight: string): string {
  for (let d = 0; d <= 9; d += 1) {
    if (abaRoutingValid(firstEight + String(d))) return String(d);
  }
  throw new Error('expected eight digits');
}
