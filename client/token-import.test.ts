import { describe, expect, it } from 'vitest';
import {
  batchable,
  importBatch,
  type ImportLine,
  type ImportRequest,
  type ImportTransport,
} from './token-import.ts';

class LineError extends Error {}

/**
 * A vault in a few lines: a request whose `data` is "bad" is refused (a line error), "down" fails
 * as the vault itself would (any other error); tokenize is all or nothing. It records each call.
 */
function fakeVault(): ImportTransport<ImportRequest> & { calls: string[] } {
  let next = 0;
  const calls: string[] = [];
  const check = (r: ImportRequest) => {
    if (r.data === 'down') throw new Error('the vault is down');
    if (r.data === 'bad') throw new LineError('data is not valid');
  };
  return {
    calls,
    async tokenize(requests) {
      calls.push(`tokenize ${requests.length}`);
      requests.forEach(check);
      return requests.map(() => `t${++next}`);
    },
    async create(request) {
      calls.push('create');
      check(request);
      return { id: `t${++next}`, created: request.deduplicate_token !== true };
    },
    isLineError: (error) => error instanceof LineError,
  };
}

const lines = (...data: unknown[]): ImportLine[] =>
  data.map((d, i) => ({ line: i + 1, request: { type: 'token', data: d } }));

describe('batchable', () => {
  it('batches definitions that cannot be deduplicated', () => {
    expect(batchable({ type: 'card', data: {} }, false)).toBe(true);
    expect(batchable({ data: 'x' }, false)).toBe(true);
    expect(batchable({ data: 'x', deduplicate_token: true }, false)).toBe(false);
    expect(batchable({ data: 'x' }, true)).toBe(false);
    expect(batchable({ data: 'x', deduplicate_token: false }, true)).toBe(true);
    expect(batchable({ type: 3, data: 'x' }, false)).toBe(false);
    expect(batchable({ type: 'token', data: null }, false)).toBe(false);
  });
});

describe('importBatch', () => {
  it('sends a run of good lines as one tokenize request', async () => {
    const vault = fakeVault();
    const outcomes = await importBatch(lines('a', 'b', 'c'), false, vault);
    expect(vault.calls).toEqual(['tokenize 3']);
    expect(outcomes.map((o) => o.ok && o.id)).toEqual(['t1', 't2', 't3']);
  });

  it('splits a failing batch until the bad line stands alone, keeping every good line', async () => {
    const vault = fakeVault();
    const outcomes = await importBatch(lines('a', 'b', 'bad', 'c'), false, vault);
    expect(outcomes.filter((o) => o.ok).map((o) => o.line)).toEqual([1, 2, 4]);
    const failed = outcomes.filter((o) => !o.ok);
    expect(failed.map((o) => o.line)).toEqual([3]);
    expect(vault.calls).toEqual(['tokenize 4', 'tokenize 2', 'tokenize 2', 'create', 'create']);
  });

  it('creates lines that may be deduplicated one by one, in file order with the others', async () => {
    const vault = fakeVault();
    const batch: ImportLine[] = [
      { line: 1, request: { data: 'a' } },
      { line: 2, request: { data: 'b', deduplicate_token: true } },
      { line: 3, request: { data: 'c' } },
      { line: 4, request: { data: 'd' } },
    ];
    const outcomes = await importBatch(batch, false, vault);
    expect(vault.calls).toEqual(['create', 'create', 'tokenize 2']);
    expect(outcomes.map((o) => o.line)).toEqual([1, 2, 3, 4]);
    expect(outcomes[1]).toMatchObject({ ok: true, created: false });
  });

  it("stops at an error of the vault's own", async () => {
    const vault = fakeVault();
    await expect(importBatch(lines('a', 'down'), false, vault)).rejects.toThrow('the vault is down');
  });
});
