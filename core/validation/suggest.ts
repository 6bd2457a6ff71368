import leven, { closestMatch } from 'leven';

/**
 * The one "did you mean" of svc vault: the valid value nearest to a near miss (`privat` →
 * `private`, `tokn:read` → `token:read`), or undefined when none is near. Near means at most a
 * third of the word's letters changed (at least one), compared without letter case, so a wild
 * guess gets the list of valid values rather than a misleading suggestion.
 */
export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  const lower = word.trim().toLowerCase();
  if (lower === '') return undefined;
  const maxDistance = Math.max(1, Math.floor(lower.length / 3));
  const byLower = new Map(candidates.map((candidate) => [candidate.toLowerCase(), candidate]));
  const found = closestMatch(lower, [...byLower.keys()]);
  if (found === undefined) return undefined;
  // closestMatch returns the nearest even when it is farther than the cap: check the distance.
  return leven(lower, found) <= maxDistance ? byLower.get(found) : undefined;
}

/** " (did you mean private?)" for a near miss, else "": to append to a message. */
export function didYouMeanSuffix(word: string, candidates: readonly string[]): string {
  const near = didYouMean(word, candidates);
  return near === undefined ? '' : ` (did you mean ${near}?)`;
}
