/** Whole numbers as people read them in the browser's language: 12,345 (en), 12 345 (fr). */
const COUNT = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });

export function formatCount(n: number): string {
  return COUNT.format(n);
}

/**
 * How usage stands against what is included: `over` once above it (never shown as fine), `near`
 * from 80 % on, `within` below.
 */
export function usageLevel(used: number, included: number): 'within' | 'near' | 'over' {
  if (used > included) return 'over';
  return used >= included * 0.8 ? 'near' : 'within';
}

/** The round number at or above `n` an axis ends on: 1, 2, 2.5 or 5 times a power of ten. */
export function niceCeiling(n: number): number {
  const power = 10 ** Math.floor(Math.log10(n));
  const step = [1, 2, 2.5, 5, 10].find((s) => s * power >= n) ?? 10;
  return Math.max(1, Math.round(step * power));
}
