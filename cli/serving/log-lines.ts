import type { Writer } from '../runtime/deps.ts';

const LEVELS: Readonly<Record<number, string>> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};

interface LogLine {
  readonly level?: number;
  readonly time?: number;
  readonly msg?: string;
  readonly req?: { readonly method?: string; readonly path?: string };
  readonly res?: { readonly statusCode?: number };
  readonly responseTime?: number;
}

/**
 * One pino JSON line as a person reads it: `04:13:28 info  GET /healthz 200 1.2 ms request completed`.
 * Only the fields the server's safe serializers emit are shown; a line that is not such JSON is
 * passed through as it is.
 */
export function humanLogLine(line: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return line;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return line;
  const entry = parsed as LogLine;
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString().slice(11, 19) : '';
  const level = (LEVELS[entry.level ?? 30] ?? 'info').padEnd(5);
  const parts = [time, level];
  if (entry.req?.method !== undefined) parts.push(`${entry.req.method} ${entry.req.path ?? ''}`);
  if (entry.res?.statusCode !== undefined) parts.push(String(entry.res.statusCode));
  if (typeof entry.responseTime === 'number') parts.push(`${entry.responseTime.toFixed(1)} ms`);
  if (entry.msg !== undefined) parts.push(entry.msg);
  return parts.filter((part) => part !== '').join(' ');
}

/** Server logs for a terminal: each JSON line rewritten by `humanLogLine`. Pipes keep the JSON. */
export function humanLogWriter(out: Writer): Writer {
  return {
    isTTY: out.isTTY,
    write: (text) => {
      const lines = text.split('\n');
      const ending = lines.pop() ?? '';
      out.write(lines.map((line) => `${humanLogLine(line)}\n`).join('') + ending);
    },
  };
}
