/**
 * A hint while typing a card number, never a verdict: the server validates every token and its
 * answer is what counts.
 */
export function luhnHint(value: string): string | null {
  const digits = value.replace(/[\s-]/g, '');
  if (digits === '') return null;
  if (!/^\d+$/.test(digits)) return 'Only digits, spaces and dashes.';
  if (digits.length < 12 || digits.length > 19) return `${digits.length} digits; card numbers have 12 to 19.`;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0 ? 'Passes the Luhn check.' : 'Fails the Luhn check (a typo?).';
}
