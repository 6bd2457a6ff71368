import { describe, expect, it } from 'vitest';
import { jsonlLines, summarize } from './jsonl';

describe('jsonlLines', () => {
  it('numbers lines as an editor does, skipping blank ones', () => {
    const lines = jsonlLines('{"data":"a"}\n\n  \n{"data":"b"}\r\n');
    expect(lines).toEqual([
      { line: 1, ok: true, value: { data: 'a' } },
      { line: 4, ok: true, value: { data: 'b' } },
    ]);
  });

  it('names lines that are not JSON objects', () => {
    const lines = jsonlLines('{"data":1}\n{oops\n[1,2]\n"text"');
    expect(lines.map((l) => [l.line, l.ok])).toEqual([
      [1, true],
      [2, false],
      [3, false],
      [4, false],
    ]);
    expect(lines[1]).toMatchObject({ message: expect.stringMatching(/^not JSON/) });
    expect(lines[2]).toMatchObject({ message: expect.stringContaining('JSON object') });
  });
});

describe('summarize', () => {
  it('counts created tokens and duplicates, and keeps the failed lines in order', () => {
    expect(
      summarize([
        { line: 1, ok: true, id: 't1', created: true },
        { line: 2, ok: false, message: 'data is required' },
        { line: 3, ok: true, id: 't2', created: true },
        { line: 4, ok: true, id: 't1', created: false },
      ]),
    ).toEqual({ created: 2, duplicates: 1, failed: [{ line: 2, ok: false, message: 'data is required' }] });
  });
});
