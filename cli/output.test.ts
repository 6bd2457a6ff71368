import { describe, expect, it } from 'vitest';
import type { CliDeps } from './deps.ts';
import { makeTestIo } from './test-support/harness.ts';
import { fitColumns, writeTable } from './output.ts';

function terminal(columns: number): { deps: CliDeps; text(): string } {
  const io = makeTestIo({ env: { NO_COLOR: '1' } });
  let text = '';
  const deps: CliDeps = { ...io.deps, stdout: { write: (t) => void (text += t), isTTY: true, columns } };
  return { deps, text: () => text };
}

const HEAD = ['ID', 'Type', 'Fingerprint'];
const ROWS = [
  ['3f2c9b1d-0000-4000-8000-000000000001', 'card', 'CU7Hut5sQuqRtTx9qe9f21fqcs3mvTLY8SHHHeHiz4U3'],
];

describe('tables on a terminal', () => {
  it('fit the terminal width: the widest column is cut first, with …', () => {
    const out = terminal(60);
    writeTable(out.deps, HEAD, ROWS);
    const lines = out.text().trimEnd().split('\n');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(60);
    expect(out.text()).toContain('…');
    expect(out.text()).toContain('card');
  });

  it('--wide shows every cell in full; a table that fits is left alone', () => {
    const wide = terminal(60);
    writeTable(wide.deps, HEAD, ROWS, { wide: true });
    expect(wide.text()).toContain(ROWS[0]?.[2]);
    expect(fitColumns(HEAD, ROWS, 200)).toBeUndefined();
  });
});
