/**
 * The console's JSONL import (desktop/renderer/src/tokens/import-run.ts, the code the browser runs)
 * against the real API over a temp vault: lines per second for a file of `lines` lines, sent in
 * batches as the console sends them (client/token-import.ts). The browser adds its own overhead on
 * top; e2e/console-tools.test.ts prints the figure it sees for 1,000 lines.
 */
import { createApiClient } from '../client/api-client.ts';
import { runImport } from '../desktop/renderer/src/tokens/import-run.ts';
import { importMessageOf, importTransport } from '../desktop/renderer/src/tokens/import-transport.ts';
import { emit } from './json-lines.ts';
import { startBenchServer, stopChild } from './support/child.ts';
import { fileURLToPath } from 'node:url';

const BENCH = 'console-import';
/** What the console's import must reach on this machine. */
const TARGET_LINES_PER_SECOND = 300;
const serveScript = fileURLToPath(new URL('./support/serve.ts', import.meta.url));

export async function runConsoleImportBench(options: { lines: number }): Promise<void> {
  const { child, ready } = await startBenchServer<{ url: string; key: string }>(serveScript, 'vault');
  try {
    const client = createApiClient({ baseUrl: ready.url, credentials: { apiKey: ready.key } });
    const text = Array.from({ length: options.lines }, (_, i) =>
      JSON.stringify({ type: 'token', data: `imported value ${i}`, metadata: { line: String(i + 1) } }),
    ).join('\n');
    const started = performance.now();
    const result = await runImport(text, {
      transport: importTransport(client),
      tenantDedupes: false,
      messageOf: importMessageOf,
      onProgress: () => undefined,
      stopped: () => false,
    });
    const seconds = (performance.now() - started) / 1000;
    const failed = result.outcomes.filter((o) => !o.ok).length;
    emit({
      bench: BENCH,
      metric: 'lines_per_second',
      value: Math.round(options.lines / seconds),
      unit: 'lines/s',
      lines: options.lines,
      seconds: Number(seconds.toFixed(2)),
      failed,
      target: TARGET_LINES_PER_SECOND,
    });
  } finally {
    await stopChild(child);
  }
}
