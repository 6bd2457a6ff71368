/** One non-blank line of a JSONL file: the object it holds, or why it is not one. */
export type JsonlLine =
  | { readonly line: number; readonly ok: true; readonly value: Record<string, unknown> }
  | { readonly line: number; readonly ok: false; readonly message: string };

/**
 * The lines of a JSONL import file, numbered as an editor numbers them (from 1, blank lines
 * counted but skipped). Each must be one JSON object: a POST /tokens request, as for
 * `svc token import`.
 */
export function jsonlLines(text: string): JsonlLine[] {
  const lines: JsonlLine[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      lines.push({
        line,
        ok: false,
        message: `not JSON: ${error instanceof Error ? error.message : String(error)}`,
      });
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      lines.push({ line, ok: false, message: 'must be a JSON object (a token create request)' });
      return;
    }
    lines.push({ line, ok: true, value: value as Record<string, unknown> });
  });
  return lines;
}

/**
 * What became of one line: its token id (`created` false when deduplication returned an existing
 * token), or the problem (the server's or the parser's).
 */
export type LineOutcome =
  | { readonly line: number; readonly ok: true; readonly id: string; readonly created: boolean }
  | { readonly line: number; readonly ok: false; readonly message: string };

export interface ImportSummary {
  readonly created: number;
  readonly duplicates: number;
  readonly failed: readonly Extract<LineOutcome, { ok: false }>[];
}

export function summarize(outcomes: readonly LineOutcome[]): ImportSummary {
  const failed = outcomes.filter((o): o is Extract<LineOutcome, { ok: false }> => !o.ok);
  const duplicates = outcomes.filter((o) => o.ok && !o.created).length;
  return { created: outcomes.length - failed.length - duplicates, duplicates, failed };
}
