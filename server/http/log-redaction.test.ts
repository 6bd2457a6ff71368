import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { redactingObjectsOnly } from './log-redaction.ts';

const REDACT = { paths: ['headers["authorization"]', '*.headers["authorization"]'], censor: '[redacted]' };

function loggers() {
  const lines = { plain: [] as string[], ours: [] as string[] };
  const make = (into: string[]) =>
    pino(
      { redact: REDACT, timestamp: false, base: null },
      { write: (chunk: string) => void into.push(chunk) },
    );
  return { lines, plain: make(lines.plain), ours: redactingObjectsOnly(make(lines.ours)) };
}

describe('redactingObjectsOnly', () => {
  it('writes exactly what pino’s own redaction writes', () => {
    const { lines, plain, ours } = loggers();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ method: 'POST', statusCode: 200, responseTime: 1.25, ok: true, none: null, big: 10n }, 'done'],
      [{ headers: { authorization: 'Bearer secret', accept: '*/*' } }, 'headers'],
      [{ req: { headers: { authorization: 'Bearer secret' }, url: '/x' }, list: [1, 'a'] }, 'nested'],
      [{ headers: 'a string', quote: 'say "hi"\n', inf: Infinity }, 'odd values'],
    ];
    for (const [object, message] of cases) {
      plain.info(object, message);
      ours.info(object, message);
    }
    for (const logger of [plain, ours]) logger.child({ traceId: 't-1', n: 2 }).warn('child');
    expect(lines.ours).toEqual(lines.plain);
    expect(lines.ours.join('')).not.toContain('secret');
  });

  it('is inherited by children, which still redact objects', () => {
    const { lines, ours } = loggers();
    ours.child({ traceId: 't-2' }).info({ response: { headers: { authorization: 'Bearer secret' } } }, 'x');
    expect(JSON.parse(lines.ours[0]!)).toMatchObject({
      traceId: 't-2',
      response: { headers: { authorization: '[redacted]' } },
    });
  });
});
