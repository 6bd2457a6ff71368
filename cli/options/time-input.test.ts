import { describe, expect, it } from 'vitest';
import { parseTimeInput } from './time-input.ts';

describe('parseTimeInput', () => {
  const now = new Date('2025-06-15T12:30:00.000Z');

  it('reads durations back from now', () => {
    expect(parseTimeInput('24h', now)).toBe('2025-06-14T12:30:00.000Z');
    expect(parseTimeInput('7d', now)).toBe('2025-06-08T12:30:00.000Z');
    expect(parseTimeInput('30m', now)).toBe('2025-06-15T12:00:00.000Z');
    expect(parseTimeInput('2 weeks', now)).toBe('2025-06-01T12:30:00.000Z');
  });

  it('reads now, today and yesterday (midnight, local time)', () => {
    expect(parseTimeInput('now', now)).toBe(now.toISOString());
    const today = new Date(now.getFullYear(), now.getMonth(), now.getDate());
    expect(parseTimeInput('today', now)).toBe(today.toISOString());
    const yesterday = new Date(now.getFullYear(), now.getMonth(), now.getDate() - 1);
    expect(parseTimeInput('Yesterday', now)).toBe(yesterday.toISOString());
  });

  it('reads ISO 8601 dates and date-times into the stored form', () => {
    expect(parseTimeInput('2025-01-31', now)).toBe('2025-01-31T00:00:00.000Z');
    expect(parseTimeInput('2025-01-31T12:00:00+01:00', now)).toBe('2025-01-31T11:00:00.000Z');
  });

  it('refuses anything else, a bare number (no unit) included', () => {
    for (const text of ['100', 'soon', '7 fortnights', '2025-13-45', ''])
      expect(() => parseTimeInput(text, now), text).toThrow(/Expected a time/);
  });
});
