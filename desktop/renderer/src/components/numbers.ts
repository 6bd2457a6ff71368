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
