/** Luhn (mod 10) checksum over a string of ASCII digits. Card numbers. */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i -= 1) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** The digit that makes `partial + digit` Luhn-valid (for tests and fixtures). */
export function luhnCheckDigit(partial: string): string {
  for (let d = 0; d <= 9; d += 1) {
    if (luhnValid(partial + String(d))) return String(d);
  }
  throw new Error('unreachable: one Luhn check digit always exists');
}
