import { InvalidArgumentError } from 'commander';
import ms from 'ms';

/**
 * A point in time as a person types it for `--since`/`--until`, in the stored form (ISO 8601, UTC):
 * - an ISO 8601 date or date-time (`2025-01-31`, `2025-01-31T12:00:00+01:00`);
 * - a duration back from now (`90m`, `24h`, `7d`, `2 weeks`; parsed by the `ms` package);
 * - `now`, `today` or `yesterday` (midnight of that day, local time, as journalctl reads them).
 */
export function parseTimeInput(text: string, now: Date): string {
  const trimmed = text.trim();
  const word = trimmed.toLowerCase();
  if (word === 'now') return now.toISOString();
  if (word === 'today' || word === 'yesterday') {
    const midnight = new Date(now.getFullYear(), now.getMonth(), now.getDate());
    if (word === 'yesterday') midnight.setDate(midnight.getDate() - 1);
    return midnight.toISOString();
  }
  // A bare number would read as milliseconds: a duration needs its unit.
  if (/^\d+(\.\d+)?\s*[a-z]+$/i.test(trimmed)) {
    const span = ms(trimmed as ms.StringValue) as number | undefined;
    if (span !== undefined && Number.isFinite(span)) return new Date(now.getTime() - span).toISOString();
  }
  const date = new Date(trimmed);
  if (/^\d{4}-\d{2}-\d{2}([T ]|$)/.test(trimmed) && !Number.isNaN(date.getTime())) return date.toISOString();
  throw new InvalidArgumentError(
    'Expected a time: an ISO 8601 date or date-time (2025-01-31T12:00:00Z), a duration back from now (24h, 7d, 30m), now, today or yesterday.',
  );
}
