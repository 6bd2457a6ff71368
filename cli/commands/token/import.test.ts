import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VaultError } from '../../../core/errors/catalogue.ts';
import type { Services } from '../../../core/services-contract.ts';
import type { TokenService, TokenView } from '../../../core/tokens/contract.ts';
import { run as runCli } from '../../main.ts';
import { expectNoSecret, expectOk, expectOneLineError } from '../../test-support/expect.ts';
import {
  fastServices,
  makeTestIo,
  runSvc,
  type TempHome,
  type TestIoOptions,
} from '../../test-support/harness.ts';
import { makeTenantHome } from '../../test-support/tenant-home.ts';
import type { ImportSummary } from './import.ts';

/** `svc token import` against a real vault: batches, duplicates, rejected lines, the summary. */

let home: TempHome;

beforeEach(async () => {
  ({ home } = await makeTenantHome({ ownerEmail: 'o@example.com' }));
});
afterEach(() => home.cleanup());

const run = (args: string[], options: TestIoOptions = {}) =>
  runSvc(args, { env: home.env(), cwd: home.dir, ...options });

const CARD = { number: '4242424242424242', expiration_month: 12, expiration_year: 2030 };
const SSN = '123-45-6789';
const BAD_CARD = '4242424242424241';

/** Every secret the file holds: none may appear in any output. */
const SECRETS = [
  CARD.number,
  SSN,
  BAD_CARD,
  'bad-json-secret',
  'unknown-field-secret',
  'token-secret-1',
  'no-type-secret',
];

/** Lines 1–11 (line 3 blank): 4 created, 1 duplicate, 5 rejected. */
const MIXED = [
  JSON.stringify({ type: 'card', data: CARD, metadata: { row: '1' } }),
  JSON.stringify({ type: 'social_security_number', data: SSN }),
  '',
  `{"type":"token","data":"bad-json-secret"`,
  JSON.stringify({ type: 'card', data: { number: BAD_CARD } }),
  JSON.stringify({ type: 'card', data: CARD, deduplicate_token: true }),
  JSON.stringify({ type: 'token', data: 'unknown-field-secret', container: '/x/' }),
  JSON.stringify({ id: 'imp-1', type: 'token', data: 'token-secret-1' }),
  JSON.stringify({ id: 'imp-1', type: 'token', data: 'token-secret-1' }),
  '"a string"',
  JSON.stringify({ data: 'no-type-secret' }),
].join('\n');

async function writeLines(name: string, text: string): Promise<string> {
  const file = path.join(home.dir, name);
  await writeFile(file, `${text}\n`);
  return file;
}

async function listRevealed(): Promise<TokenView[]> {
  const result = await run(['token', 'list', '--reveal', '--json', '--size', '100']);
  expectOk(result);
  return (JSON.parse(result.stdout) as { data: TokenView[] }).data;
}

function expectMixedSummary(summary: ImportSummary, file: string): void {
  expect(summary).toMatchObject({ source: file, lines: 10, created: 4, duplicates: 1, rejected: 5 });
  expect(summary.rejections.map((r) => [r.line, r.code])).toEqual([
    [4, 'MALFORMED_JSON'],
    [5, 'VALIDATION_FAILED'],
    [7, 'VALIDATION_FAILED'],
    [9, 'CONFLICT'],
    [10, 'USAGE'],
  ]);
  expect(summary.rejections[1]?.reason).toMatch(/data\.number: .*Luhn/);
  expect(summary.rejections[2]?.reason).toMatch(/unknown field 'container'/);
  expect(summary.tokens.map((t) => [t.line, t.created])).toEqual([
    [1, true],
    [2, true],
    [6, false],
    [8, true],
    [11, true],
  ]);
  // The duplicate is the token of line 1.
  expect(summary.tokens[2]?.id).toBe(summary.tokens[0]?.id);
  expect(summary.tokens[3]?.id).toBe('imp-1');
}

describe('svc token import', () => {
  it('imports the good lines of a mixed file and reports the rest by line number, never their data', async () => {
    const file = await writeLines('mixed.jsonl', MIXED);
    const result = await run(['token', 'import', 'mixed.jsonl', '--batch', '4']);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toBe('');
    expectNoSecret(result, ...SECRETS);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`Imported ${file}: 10 lines, 4 created, 1 duplicate, 5 rejected`);
    expect(lines[1]).toBe('Rejected lines:');
    expect(lines.slice(2, 7).map((l) => /^ {2}line (\d+): ./.exec(l)?.[1])).toEqual([
      '4',
      '5',
      '7',
      '9',
      '10',
    ]);
    expect(lines[7]).toBe('5 lines were rejected (exit status 1); the others were imported.');

    const tokens = await listRevealed();
    expect(tokens.map((t) => t.data).sort()).toEqual([CARD, SSN, 'no-type-secret', 'token-secret-1'].sort());
    expect(tokens.find((t) => t.id === 'imp-1')?.type).toBe('token');
    expect(tokens.find((t) => t.data === 'no-type-secret')?.type).toBe('token');
    expect(tokens.find((t) => t.type === 'card')?.metadata).toEqual({ row: '1' });
  });

  it.each([1, 2, 100])('--json summary; the same result with --batch %i', async (batch) => {
    const file = await writeLines('mixed.jsonl', MIXED);
    const result = await run(['token', 'import', file, '--batch', String(batch), '--json']);
    expect(result.code).toBe(1);
    expectNoSecret(result, ...SECRETS);
    expectMixedSummary(JSON.parse(result.stdout) as ImportSummary, file);
    expect(await listRevealed()).toHaveLength(4);
  });

  it('exit 0 when every line is imported; --dedupe makes a second import all duplicates', async () => {
    const lines = Array.from({ length: 25 }, (_, i) =>
      JSON.stringify({ type: 'token', data: `value-${i}`, metadata: { n: String(i) } }),
    );
    await writeLines('good.jsonl', lines.join('\n'));
    const first = await run(['token', 'import', 'good.jsonl', '--batch', '10', '--json']);
    expectOk(first);
    const summary = JSON.parse(first.stdout) as ImportSummary;
    expect(summary).toMatchObject({ lines: 25, created: 25, duplicates: 0, rejected: 0, rejections: [] });
    expect(new Set(summary.tokens.map((t) => t.id)).size).toBe(25);

    const again = await run(['token', 'import', 'good.jsonl', '--dedupe']);
    expectOk(again);
    expect(again.stdout).toMatch(/: 25 lines, 0 created, 25 duplicates, 0 rejected\n$/);
    expect(await listRevealed()).toHaveLength(25);

    const stdin = await run(['token', 'import', '-', '--json'], { stdin: lines[0] });
    expectOk(stdin);
    expect(JSON.parse(stdin.stdout)).toMatchObject({ source: 'standard input', lines: 1, created: 1 });
  });

  it('an empty file imports nothing and succeeds', async () => {
    await writeLines('empty.jsonl', '\n\n');
    const result = await run(['token', 'import', 'empty.jsonl']);
    expectOk(result);
    expect(result.stdout).toMatch(/: 0 lines, 0 created, 0 duplicates, 0 rejected\n$/);
  });

  it('shows a progress bar on a terminal (stderr only), never in a pipe', async () => {
    const lines = Array.from({ length: 12 }, (_, i) =>
      JSON.stringify({ type: 'token', data: `secret-${i}-x` }),
    );
    await writeLines('p.jsonl', lines.join('\n'));
    const io = makeTestIo({ env: home.env(), cwd: home.dir });
    let stderr = '';
    const code = await runCli(['token', 'import', 'p.jsonl', '--batch', '5'], {
      ...io.deps,
      stderr: { write: (text) => void (stderr += text), isTTY: true },
    });
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(/12\/12 lines/);
    expect(stderr).not.toMatch(/secret-/);
    expect(io.stdout()).toMatch(/: 12 lines, 12 created/);
  });

  it('an error of the vault (not of a line) stops the import and the summary says where', async () => {
    // Tokens whose data is "boom" fail as if the vault had closed under the import.
    const failing: TokenService['create'] = () => Promise.reject(new VaultError('VAULT_CLOSED'));
    const services = async (vault: Parameters<typeof fastServices>[0]): Promise<Services> => {
      const real = await fastServices(vault);
      const tokens: TokenService = {
        create: (p, r) => (r.data === 'boom' ? failing(p, r) : real.tokens.create(p, r)),
        tokenize: (p, body) =>
          Array.isArray(body) && body.some((b) => (b as { data?: unknown }).data === 'boom')
            ? Promise.reject(new VaultError('VAULT_CLOSED'))
            : real.tokens.tokenize(p, body),
        get: (p, id) => real.tokens.get(p, id),
        list: (p, f, page) => real.tokens.list(p, f, page),
        update: (p, id, patch) => real.tokens.update(p, id, patch),
        delete: (p, id) => real.tokens.delete(p, id),
        search: (p, r) => real.tokens.search(p, r),
        sweepExpired: () => real.tokens.sweepExpired(),
      };
      return { ...real, tokens };
    };
    const lines = ['one', 'two', 'three', 'boom', 'five'].map((data) =>
      JSON.stringify({ type: 'token', data }),
    );
    await writeLines('stop.jsonl', lines.join('\n'));
    const result = await run(['token', 'import', 'stop.jsonl', '--batch', '2'], { services });
    expect(result.code).toBe(1);
    // Lines 3 and 4 were one transaction: neither was written; line 5 was never tried. The summary
    // counts the lines before the stop.
    expect(result.stdout).toMatch(/: 2 lines, 2 created, 0 duplicates, 0 rejected\n/);
    expect(result.stdout).toMatch(/Stopped at line 3: it and the lines after it were not imported\.\n$/);
    expect(result.stderr).toMatch(/^svc: [^\n]*closed[^\n]*\n$/i);
    expect((await listRevealed()).map((t) => t.data).sort()).toEqual(['one', 'two']);

    // One line at a time, the stop is at the failing line itself.
    const single = await run(['token', 'import', 'stop.jsonl', '--batch', '1', '--json'], { services });
    expect(single.code).toBe(1);
    expect(JSON.parse(single.stdout)).toMatchObject({ created: 3, stopped_at_line: 4 });
  });
});

describe('svc token import: Ctrl-C', () => {
  it('stops between batches, prints the summary and how to resume; --resume-from picks up there', async () => {
    const lines = ['one', 'two', 'three', 'four', 'five'].map((data) =>
      JSON.stringify({ type: 'token', data }),
    );
    await writeLines('big.jsonl', lines.join('\n'));
    const io = makeTestIo({
      env: home.env(),
      cwd: home.dir,
      // The "Ctrl-C" arrives while the first batch is being written.
      services: async (vault) => {
        const real = await fastServices(vault);
        return {
          ...real,
          tokens: {
            ...real.tokens,
            tokenize: async (p, body) => {
              const result = await real.tokens.tokenize(p, body);
              io.shutdown('SIGINT');
              return result;
            },
          },
        };
      },
    });
    const code = await runCli(['token', 'import', 'big.jsonl', '--batch', '2'], io.deps);
    expect(code).toBe(2);
    // The summary counts the lines sent before the stop, not the whole file.
    expect(io.stdout()).toMatch(/: 2 lines, 2 created, 0 duplicates, 0 rejected\n/);
    expect(io.stdout()).toMatch(
      /\nInterrupted: line 3 and the lines after it were not imported\. To resume: npx svc token import \S*big\.jsonl --resume-from 3\n$/,
    );
    expect(io.stderr()).toMatch(/^svc: import interrupted at line 3\n$/);

    const resumed = await run(['token', 'import', 'big.jsonl', '--resume-from', '3', '--json']);
    expectOk(resumed);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ lines: 3, created: 3 });
    expect((await listRevealed()).map((t) => t.data).sort()).toEqual(['five', 'four', 'one', 'three', 'two']);
  });
});

describe('svc token import: usage', () => {
  it('an unreadable file is a usage error before the vault is opened', async () => {
    expectOneLineError(
      await run(['token', 'import', 'none.jsonl']),
      2,
      /cannot read the file .*none\.jsonl \(ENOENT\)/,
    );
  });
});
