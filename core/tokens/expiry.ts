/**
 * `expires_at`: what the API accepts and how it answers.
 *
 * Accepted (case-insensitive, surrounding spaces ignored):
 * - ISO 8601 date-time with an offset: `2030-08-26T19:23:57-07:00`, `2030-04-23T13:24:28Z`
 *   (seconds and fractions optional; `+0700` also accepted);
 * - ISO 8601 date-time without an offset, read as UTC: `2030-04-23T13:24:28`;
 * - an ISO date `2030-04-23` or a short date `9/27/2030` (month/day/year): midnight UTC;
 * - the long US form `8/26/2030 7:23:57 PM -07:00` (12-hour clock with AM/PM, or 24-hour
 *   without; seconds and offset optional, no offset = UTC).
 * The response keeps the caller's offset (`2030-08-26T19:23:57-07:00`); without one it is UTC with
 * `Z`. Milliseconds are shown only when not zero. Years 1000–9999; offsets up to ±14:00.
 */
import { validationError } from '../errors/catalogue.ts';

export interface Expiry {
  /** The instant, stored as `toISOString()` (UTC) and compared as text. */
  readonly at: Date;
  /** The caller's offset in minutes east of UTC; null when none was given (shown as `Z`). */
  readonly offsetMinutes: number | null;
}

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?\s*(Z|[+-]\d{2}:?\d{2})?)?$/i;
const US =
  /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?(?:\s*(AM|PM))?(?:\s*(Z|[+-]\d{2}:?\d{2}))?)?$/i;

const MAX_OFFSET_MINUTES = 14 * 60;

interface Parts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  ms: number;
  offset: string | undefined;
}

function num(text: string | undefined): number {
  return text === undefined ? 0 : Number(text);
}

function matchParts(text: string): Parts | string {
  const iso = ISO.exec(text);
  if (iso) {
    return {
      year: num(iso[1]),
      month: num(iso[2]),
      day: num(iso[3]),
      hour: num(iso[4]),
      minute: num(iso[5]),
      second: num(iso[6]),
      ms: iso[7] === undefined ? 0 : Number(iso[7].slice(0, 3).padEnd(3, '0')),
      offset: iso[8],
    };
  }
  const us = US.exec(text);
  if (us) {
    let hour = num(us[4]);
    const meridiem = us[7]?.toUpperCase();
    if (meridiem !== undefined) {
      if (hour < 1 || hour > 12) return 'has an hour outside 1–12 with AM/PM';
      hour = (hour % 12) + (meridiem === 'PM' ? 12 : 0);
    }
    return {
      year: num(us[3]),
      month: num(us[1]),
      day: num(us[2]),
      hour,
      minute: num(us[5]),
      second: num(us[6]),
      ms: 0,
      offset: us[8],
    };
  }
  return (
    'must be a date-time such as 2030-08-26T19:23:57-07:00 (no offset = UTC), ' +
    'a date such as 9/27/2030 or 2030-09-27 (midnight UTC), or 8/26/2030 7:23:57 PM -07:00'
  );
}

function offsetMinutes(offset: string | undefined): number | null | string {
  if (offset === undefined || offset.toUpperCase() === 'Z') return offset === undefined ? null : 0;
  const digits = offset.replace(':', '');
  const sign = digits.startsWith('-') ? -1 : 1;
  const hours = Number(digits.slice(1, 3));
  const minutes = Number(digits.slice(3, 5));
  if (minutes > 59 || hours * 60 + minutes > MAX_OFFSET_MINUTES) return 'has an offset beyond ±14:00';
  return sign * (hours * 60 + minutes);
}

/** The parsed expiry, or why `value` is not one (no check against the clock). */
export function parseExpiry(value: unknown): Expiry | string {
  if (typeof value !== 'string') return 'must be a string';
  const parts = matchParts(value.trim());
  if (typeof parts === 'string') return parts;
  const { year, month, day, hour, minute, second, ms } = parts;
  if (year < 1000) return 'must have a four-digit year from 1000';
  if (month < 1 || month > 12) return 'has a month outside 1–12';
  if (hour > 23 || minute > 59 || second > 59) return 'has a time outside 00:00:00–23:59:59';
  const local = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  const check = new Date(local);
  if (check.getUTCDate() !== day || check.getUTCMonth() !== month - 1) return 'is not a calendar date';
  const offset = offsetMinutes(parts.offset);
  if (typeof offset === 'string') return offset;
  // `Z` was given explicitly: keep showing `Z` (offset null), exactly like a value without offset.
  const shown = parts.offset === undefined || parts.offset.toUpperCase() === 'Z' ? null : offset;
  return { at: new Date(local - (offset ?? 0) * 60_000), offsetMinutes: shown };
}

/** Checks `value` for the field `field`: a valid expiry strictly after `now`, else 400. */
export function checkExpiresAt(value: unknown, now: Date, field = 'expires_at'): Expiry {
  const parsed = parseExpiry(value);
  if (typeof parsed === 'string') throw validationError({ [field]: [parsed] });
  if (parsed.at.getTime() <= now.getTime()) throw validationError({ [field]: ['must be in the future'] });
  return parsed;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** ISO 8601 with the caller's offset (or `Z`), e.g. `2030-08-26T19:23:57-07:00`. */
export function formatExpiry(utcIso: string, offsetMinutes: number | null): string {
  const offset = offsetMinutes ?? 0;
  const local = new Date(new Date(utcIso).getTime() + offset * 60_000);
  const ms = local.getUTCMilliseconds();
  const text =
    `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}` +
    `T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}` +
    (ms === 0 ? '' : `.${pad(ms, 3)}`);
  if (offsetMinutes === null) return `${text}Z`;
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return `${text}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** Whether a stored expiry has passed at `now` (expired tokens are invisible at once). */
export function isExpired(expiresAt: string | null, now: Date): boolean {
  return expiresAt !== null && expiresAt <= now.toISOString();
}
