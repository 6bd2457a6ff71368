import { describe, expect, it } from 'vitest';
import type { CliDeps } from '../runtime/deps.ts';
import { makeTestIo } from '../test-support/harness.ts';
import { fitColumns, relativeTime, writeTable } from './table.ts';

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

describe('tables at 80 columns', () => {
  const head = ['ID', 'Type', 'Masked', 'Created'];
  const id = '3f2c9b1d-0000-4000-8000-000000000001';
  const row = [id, 'us_bank_account_number', 'XXXXXXXXXXXXXXXXXXXXXXXXXX1234', '2025-01-01T00:00:00.000Z'];

  it('keep ids whole, cut other columns, and have no box around them', () => {
    const out = terminal(80);
    writeTable(out.deps, head, [row]);
    const lines = out.text().trimEnd().split('\n');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    expect(out.text()).toContain(id);
    expect(out.text()).toContain('…');
    expect(out.text()).not.toMatch(/[│┌┐└┘─|]/);
    expect(lines[0]).toMatch(/^ID {2,}Type {2,}Masked {2,}Created$/);
    // Even a terminal too narrow for the rest keeps the id.
    expect(fitColumns(head, [row], 40)?.[0]).toBe(id.length);
  });

  it('show times as how long ago on a terminal, ISO in a pipe', () => {
    const now = new Date('2025-06-15T12:00:00.000Z');
    expect(relativeTime('2025-06-15T11:59:30.000Z', now)).toBe('just now');
    expect(relativeTime('2025-06-15T11:55:00.000Z', now)).toBe('5m ago');
    expect(relativeTime('2025-06-15T09:00:00.000Z', now)).toBe('3h ago');
    expect(relativeTime('2025-06-13T12:00:00.000Z', now)).toBe('2d ago');
    expect(relativeTime('2025-06-18T12:00:00.000Z', now)).toBe('in 3d');
    expect(relativeTime('2025-01-01T00:00:00.000Z', now)).toBe('2025-01-01');
    expect(relativeTime('-', now)).toBe('-');
    const io = makeTestIo();
    writeTable(io.deps, head, [row]);
    expect(io.stdout()).toBe(`${row.join('\t')}\n`);
  });
});
