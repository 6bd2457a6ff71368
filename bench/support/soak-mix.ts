/**
 * The soak bench's traffic mix: how many of each kind of request, as integer weights. `--mix
 * read=90,proxy=10` names the kinds it wants (the others weigh 0); the default is mostly reads.
 * Each load connection cycles through one sequence built from the weights, the kinds spread out
 * evenly (smooth weighted round robin) so that no stretch of the cycle is all one kind, and each
 * connection starts at its own place in it.
 */

export const SOAK_KINDS = ['read', 'tokenize', 'search', 'react', 'proxy'] as const;
export type SoakKind = (typeof SOAK_KINDS)[number];
export type Mix = Readonly<Record<SoakKind, number>>;

/** Mostly `GET /tokens/{id}`, with a little of every other kind. */
export const DEFAULT_MIX: Mix = { read: 80, tokenize: 5, search: 5, react: 5, proxy: 5 };
/** The check: token reads only. */
export const READS_ONLY_MIX: Mix = { read: 1, tokenize: 0, search: 0, react: 0, proxy: 0 };

/** A weight's bound: it keeps the cycle (the weights' sum over their common divisor) short. */
const MAX_WEIGHT = 1000;

function isKind(name: string): name is SoakKind {
  return (SOAK_KINDS as readonly string[]).includes(name);
}

/** `read=80,tokenize=5,…`: kinds not named weigh 0; throws on an unknown kind or a bad weight. */
export function parseMix(text: string): Mix {
  const mix: Record<SoakKind, number> = { read: 0, tokenize: 0, search: 0, react: 0, proxy: 0 };
  const seen = new Set<string>();
  for (const part of text.split(',')) {
    const [name = '', weight, extra] = part.trim().split('=');
    if (!isKind(name))
      throw new Error(`--mix: unknown kind "${name}"; the kinds are ${SOAK_KINDS.join(', ')}`);
    if (seen.has(name)) throw new Error(`--mix: ${name} is given twice`);
    seen.add(name);
    const value = Number(weight);
    if (extra !== undefined || weight === undefined || !/^\d+$/.test(weight) || value > MAX_WEIGHT) {
      throw new Error(`--mix: ${name} takes a whole weight from 0 to ${MAX_WEIGHT} (${name}=80)`);
    }
    mix[name] = value;
  }
  if (SOAK_KINDS.every((kind) => mix[kind] === 0)) throw new Error('--mix: every weight is 0');
  return mix;
}

/** The kinds with a weight, as `parseMix` reads them: `read=80,tokenize=5`. */
export function describeMix(mix: Mix): string {
  return SOAK_KINDS.filter((kind) => mix[kind] > 0)
    .map((kind) => `${kind}=${mix[kind]}`)
    .join(',');
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/**
 * One cycle of the mix: each kind as often as its weight over the weights' common divisor, spread
 * evenly (each step picks the kind furthest behind its share, ties in SOAK_KINDS order).
 */
export function weightedSequence(mix: Mix): SoakKind[] {
  const divisor = SOAK_KINDS.reduce((d, kind) => gcd(d, mix[kind]), 0);
  if (divisor === 0) throw new Error('a mix needs one kind with a weight');
  const weights = SOAK_KINDS.map((kind) => mix[kind] / divisor);
  const total = weights.reduce((a, b) => a + b, 0);
  const current = weights.map(() => 0);
  const sequence: SoakKind[] = [];
  for (let step = 0; step < total; step += 1) {
    let best = 0;
    for (let i = 0; i < weights.length; i += 1) {
      current[i]! += weights[i]!;
      if (current[i]! > current[best]!) best = i;
    }
    current[best]! -= total;
    sequence.push(SOAK_KINDS[best]!);
  }
  return sequence;
}

/**
 * Connection `index` of `connections` starts its cycle (of `length` requests) here, and turns it
 * from here on: the connections spread over the cycle instead of sending the same kind at once.
 */
export function rotatedFor<T>(cycle: readonly T[], index: number, connections: number): T[] {
  const start = Math.floor((index * cycle.length) / connections) % cycle.length;
  return [...cycle.slice(start), ...cycle.slice(0, start)];
}
