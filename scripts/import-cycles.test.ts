import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { describeCycle, importCycles, importGraph } from './import-cycles.ts';

const REPOSITORY = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('core/', () => {
  const graph = importGraph(REPOSITORY, 'core');
  const cycles = importCycles(graph);

  it('is read whole: type imports and re-exports resolve to their files', () => {
    expect(graph.get('core/services.ts')).toContain('core/services-contract.ts');
    expect(graph.get('core/services-contract.ts')).toContain('core/tenancy/contract.ts');
  });

  it('has no import circle', () => {
    expect(cycles.map(describeCycle)).toEqual([]);
  });
});

describe('the circle finder', () => {
  it('finds a loop through several files, a file importing itself, and nothing in a tree', () => {
    const graph = new Map<string, string[]>([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts', 'd.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', []],
      ['e.ts', ['e.ts', 'd.ts']],
    ]);
    expect(importCycles(graph)).toEqual([
      {
        files: ['a.ts', 'b.ts', 'c.ts'],
        imports: [
          { from: 'a.ts', to: 'b.ts' },
          { from: 'b.ts', to: 'c.ts' },
          { from: 'c.ts', to: 'a.ts' },
        ],
      },
      { files: ['e.ts'], imports: [{ from: 'e.ts', to: 'e.ts' }] },
    ]);
    expect(
      importCycles(
        new Map([
          ['x.ts', ['y.ts']],
          ['y.ts', []],
        ]),
      ),
    ).toEqual([]);
  });
});
