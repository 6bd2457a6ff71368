import type { ServerLoggerOptions } from '../http/logging.ts';

export interface LogCapture {
  /** Pass as `buildServer(vault, { logger })`. */
  readonly logger: ServerLoggerOptions;
  /** Every line written so far, raw. */
  text(): string;
  /** Every line written so far, parsed. */
  lines(): Array<Record<string, unknown>>;
}

export function captureLogs(level: ServerLoggerOptions['level'] = 'info'): LogCapture {
  const chunks: string[] = [];
  return {
    logger: { level, destination: { write: (chunk: string) => void chunks.push(chunk) } },
    text: () => chunks.join(''),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
