/** A rough passphrase strength: length and character variety, 0 (very weak) to 4 (strong). */
export function passphraseStrength(text: string): 0 | 1 | 2 | 3 | 4 {
  let classes = 0;
  for (const re of [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/]) if (re.test(text)) classes += 1;
  const bits = text.length * Math.log2([1, 26, 52, 62, 94][classes] ?? 1);
  return bits >= 90 ? 4 : bits >= 70 ? 3 : bits >= 50 ? 2 : bits >= 30 ? 1 : 0;
}

export const STRENGTH_WORDS = ['very weak', 'weak', 'fair', 'good', 'strong'] as const;
