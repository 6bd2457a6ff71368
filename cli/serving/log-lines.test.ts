import { describe, expect, it } from 'vitest';
import { humanLogLine, humanLogWriter } from './log-lines.ts';

describe('server log lines on a terminal', () => {
  it('turns the start banner and request lines into one readable line each', () => {
    const time = Date.UTC(2026, 0, 2, 3, 4, 5);
    expect(
      humanLogLine(
        JSON.stringify({ level: 30, time, pid: 1, msg: 'Server listening at http://127.0.0.1:1' }),
      ),
    ).toBe('03:04:05 info  Server listening at http://127.0.0.1:1');
    expect(
      humanLogLine(
        JSON.stringify({
          level: 30,
          time,
          req: { method: 'GET', path: '/healthz' },
          res: { statusCode: 200 },
          responseTime: 1.234,
          msg: 'request completed',
        }),
      ),
    ).toBe('03:04:05 info  GET /healthz 200 1.2 ms request completed');
    expect(humanLogLine('not json')).toBe('not json');
  });

  it('rewrites whole lines written through it', () => {
    let text = '';
    const writer = humanLogWriter({ write: (t) => void (text += t), isTTY: true });
    writer.write(`${JSON.stringify({ level: 40, time: 0, msg: 'careful' })}\n`);
    expect(text).toBe('00:00:00 warn  careful\n');
  });
});
