import { describe, expect, it } from 'vitest';
import type { ImportRequest, ImportTransport } from '../../../../client/token-import.js';
import { runImport, type ImportProgress } from './import-run';

class Refused extends Error {}

/** Refuses a request whose `data` is "bad"; records how many lines each request carried. */
function fakeVault(): ImportTransport<ImportRequest> & { requests: number[] } {
  let next = 0;
  const requests: number[] = [];
  return {
    requests,
    async tokenize(list) {
      requests.push(list.length);
      if (list.some((r) => r.data === 'bad')) throw new Refused('data is not valid');
      return list.map(() => `t${++next}`);
    },
    async create(request) {
      requests.push(1);
      if (request.data === 'bad') throw new Refused('data is not valid');
      return { id: `t${++next}`, created: true };
    },
    isLineError: (error) => error instanceof Refused,
  };
}

const jsonl = (n: number, bad: readonly number[] = []) =>
  Array.from({ length: n }, (_, i) =>
    JSON.stringify({ type: 'token', data: bad.includes(i + 1) ? 'bad' : `v${i}` }),
  ).join('\n');

describe('runImport', () => {
  it('sends 250 lines as three tokenize requests and reports progress after each', async () => {
    const vault = fakeVault();
    const seen: ImportProgress[] = [];
    const result = await runImport(jsonl(250), {
      transport: vault,
      tenantDedupes: false,
      messageOf: String,
      onProgress: (p) => seen.push(p),
      stopped: () => false,
    });
    expect(vault.requests).toEqual([100, 100, 50]);
    expect(seen.map((p) => p.done)).toEqual([0, 100, 200, 250]);
    expect(result.outcomes.every((o) => o.ok)).toBe(true);
  });

  it('names every failed line in file order, the unparsable ones without a request', async () => {
    const text = `${jsonl(3, [2])}\n{not json\n\n${JSON.stringify({ data: 'last' })}`;
    const result = await runImport(text, {
      transport: fakeVault(),
      tenantDedupes: false,
      messageOf: (e) => (e instanceof Error ? e.message : 'failed'),
      onProgress: () => undefined,
      stopped: () => false,
    });
    expect(result.outcomes.map((o) => [o.line, o.ok])).toEqual([
      [1, true],
      [2, false],
      [3, true],
      [4, false],
      [6, true],
    ]);
    expect(result.outcomes[1]).toMatchObject({ message: 'data is not valid' });
    expect(result.outcomes[3]).toMatchObject({ message: expect.stringMatching(/^not JSON/) });
  });

  it('stops between batches when asked', async () => {
    const vault = fakeVault();
    let batches = 0;
    const result = await runImport(jsonl(30), {
      transport: vault,
      tenantDedupes: false,
      messageOf: String,
      onProgress: () => batches++,
      stopped: () => batches >= 2,
      batchLines: 10,
    });
    expect(result).toMatchObject({ done: 10, total: 30 });
  });
});
