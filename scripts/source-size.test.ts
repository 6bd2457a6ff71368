import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  MAX_FILE_LINES,
  MAX_FUNCTION_LINES,
  describeOversized,
  longFunctions,
  oversizedSources,
} from './source-size.ts';

const REPOSITORY = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Data, not code: measured by what it holds, not by its lines. */
const DATA_FILES: readonly string[] = [
  // The common-password list: one string, one password per line.
  'core/identity/common-passwords.ts',
];

const excused = (file: string): boolean => DATA_FILES.includes(file);

describe('production source in core/, server/, cli/ and desktop/', () => {
  it(`has no file over ${MAX_FILE_LINES} lines and no function over ${MAX_FUNCTION_LINES}`, () => {
    const over = oversizedSources(REPOSITORY).filter((entry) => !excused(entry.file));
    expect(over.map(describeOversized)).toEqual([]);
  });
});

describe('the size measure', () => {
  it('measures every function with a body, nested ones and arrows included, named by what holds them', () => {
    const body = (lines: number) =>
      Array.from({ length: lines }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const text = [
      'export function outer() {',
      `  const inner = () => {\n${body(4)}\n  };`,
      body(3),
      '  return inner;',
      '}',
      'class C {',
      `  method() {\n${body(2)}\n  }`,
      '}',
    ].join('\n');
    expect(longFunctions('x.ts', text, 3)).toEqual([
      { name: 'outer', line: 1, lines: 12 },
      { name: 'inner', line: 2, lines: 6 },
      { name: 'method', line: 14, lines: 4 },
    ]);
    expect(longFunctions('x.ts', text, 12)).toEqual([]);
  });
});
