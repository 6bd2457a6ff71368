import { describe, expect, it } from 'vitest';
import { proxyInvocationMessage } from './invocation-message.ts';

describe('proxyInvocationMessage', () => {
  it('names method, host, status and whole milliseconds', () => {
    expect(
      proxyInvocationMessage({ method: 'POST', host: 'api.example.com', status: 201, durationMs: 83.6 }),
    ).toBe('Proxy invoked: POST api.example.com → 201 in 84 ms');
  });

  it('keeps the figures within an audit message when the host is as long as a DNS name can be', () => {
    const host = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`;
    const message = proxyInvocationMessage({ method: 'DELETE', host, status: 504, durationMs: 30_000 });
    expect(message.length).toBeLessThanOrEqual(250);
    expect(message).toMatch(/ → 504 in 30000 ms$/);
  });

  it('never says a negative duration (a clock set back meanwhile)', () => {
    expect(proxyInvocationMessage({ method: 'GET', host: 'h.example', status: 200, durationMs: -5 })).toBe(
      'Proxy invoked: GET h.example → 200 in 0 ms',
    );
  });
});
