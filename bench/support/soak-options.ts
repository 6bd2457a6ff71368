import { DEFAULT_MIX, READS_ONLY_MIX, parseMix, type Mix } from './soak-mix.ts';

/**
 * The soak bench's options from `npm run bench -- --only soak …`: `--minutes N` (default 2),
 * `--connections N` (default 50), `--mix read=80,…` or `--reads-only`. A run of a minute or more
 * prints a line every 10 seconds and counts its figure from 20 seconds in; a shorter one (the quick
 * run's 10 seconds) five lines, its figure counted from the second line.
 */
export interface SoakOptions {
  readonly seconds: number;
  readonly intervalSeconds: number;
  readonly warmupSeconds: number;
  readonly connections: number;
  readonly mix: Mix;
}

export const SOAK_MINUTES = 2;
/** The quick run's soak: brief enough for the smoke run's budget. */
export const QUICK_SOAK_SECONDS = 10;
const CONNECTIONS = 50;
const MAX_CONNECTIONS = 1000;

function valueOf(args: readonly string[], flag: string): string | undefined {
  const index = args.indexOf(flag);
  if (index < 0) return undefined;
  const value = args[index + 1];
  if (value === undefined || value.startsWith('--')) throw new Error(`${flag} takes a value`);
  return value;
}

export function soakOptionsFrom(args: readonly string[], quick: boolean): SoakOptions {
  const minutesText = valueOf(args, '--minutes');
  const minutes = minutesText === undefined ? undefined : Number(minutesText);
  if (minutes !== undefined && !(Number.isFinite(minutes) && minutes > 0 && minutes <= 24 * 60)) {
    throw new Error('--minutes takes a number of minutes above 0 (0.5, 2, 60)');
  }
  const seconds = Math.round(
    minutes !== undefined ? minutes * 60 : quick ? QUICK_SOAK_SECONDS : SOAK_MINUTES * 60,
  );
  if (seconds < 1) throw new Error('--minutes: the run must last a second at least');
  const connectionsText = valueOf(args, '--connections');
  const connections = connectionsText === undefined ? CONNECTIONS : Number(connectionsText);
  if (!(Number.isInteger(connections) && connections >= 1 && connections <= MAX_CONNECTIONS)) {
    throw new Error(`--connections takes a whole number from 1 to ${MAX_CONNECTIONS}`);
  }
  const mixText = valueOf(args, '--mix');
  const readsOnly = args.includes('--reads-only');
  if (readsOnly && mixText !== undefined) throw new Error('--reads-only and --mix: give one of them');
  const intervalSeconds = seconds >= 60 ? 10 : Math.max(1, Math.round(seconds / 6));
  return {
    seconds,
    intervalSeconds,
    warmupSeconds: seconds >= 60 ? 20 : 2 * intervalSeconds,
    connections,
    mix: readsOnly ? READS_ONLY_MIX : mixText === undefined ? DEFAULT_MIX : parseMix(mixText),
  };
}
