import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectOneLineError } from '../../test-support/expect.ts';
import { runSvc } from '../../test-support/harness.ts';
import { PARSE_CWD, parseOptions } from '../../test-support/parse.ts';
import { newTokenizeCommand } from '../tokenize/tokenize.ts';
import { newTokenCreateCommand, parseMask } from './create.ts';
import { newTokenDeleteCommand } from './delete.ts';
import { newTokenGetCommand } from './get.ts';
import { DEFAULT_BATCH, newTokenImportCommand, parseLines } from './import.ts';
import { parseJson, scrubError, secretsOf } from './input.ts';
import { newTokenListCommand } from './list.ts';
import { newTokenSearchCommand, queryValues } from './search.ts';
import { newTokenUpdateCommand } from './update.ts';
import { VaultError } from '../../../core/errors/catalogue.ts';

/** Parsing layer of `svc tokenize` and `svc token …`: flags → typed options; nothing opens a vault. */
const SECRET = '4242424242424242';

describe('svc tokenize: where the JSON comes from', () => {
  it('the argument, --file (resolved against cwd, - for stdin), or nothing', async () => {
    expect(await parseOptions(newTokenizeCommand, ['{"a":1}'])).toMatchObject({
      source: { kind: 'text', text: '{"a":1}' },
      tenant: undefined,
    });
    expect((await parseOptions(newTokenizeCommand, ['--file', 'in.json', '--tenant', 't'])).source).toEqual({
      kind: 'file',
      path: path.join(PARSE_CWD, 'in.json'),
      label: `the file ${path.join(PARSE_CWD, 'in.json')}`,
    });
    expect((await parseOptions(newTokenizeCommand, ['--file', '-'])).source).toMatchObject({ kind: 'stdin' });
    expect((await parseOptions(newTokenizeCommand, ['--json'])).source).toBeUndefined();
  });

  it('an argument and --file together are a usage error', async () => {
    expectOneLineError(await runSvc(['tokenize', '{}', '--file', 'x.json']), 2, /not both/);
  });

  it('bad JSON is a usage error that never quotes the input (checked before any vault is opened)', async () => {
    const result = await runSvc(['tokenize', `{"card": ${SECRET}x}`]);
    expectOneLineError(result, 2, /the JSON argument is not valid JSON \(at column \d+\)/);
    expect(result.stderr).not.toContain(SECRET);
    const piped = await runSvc(['tokenize'], { stdin: `["${SECRET}"` });
    expectOneLineError(piped, 2, /standard input is not valid JSON/);
    expect(piped.stderr).not.toContain(SECRET);
    expectOneLineError(await runSvc(['tokenize'], { stdin: '  \n' }), 2, /nothing to tokenize/);
  });
});

describe('svc token create', () => {
  it('every flag becomes the typed option', async () => {
    const options = await parseOptions(newTokenCreateCommand, [
      '--type',
      'card',
      '--data',
      '{"number":"4242424242424242"}',
      '--id',
      'c-1',
      '--container',
      '/pci/low/',
      '--metadata',
      'customer=c-42',
      '--metadata',
      'note=a=b',
      '--mask',
      '{"number":"{{ data.number | last4 }}"}',
      '--fingerprint-expression',
      '{{ data.number }}',
      '--search-index',
      '{{ data | slice: 0, 3 }}',
      '--search-index',
      '{{ data }}',
      '--expires-at',
      '9/27/2030',
      '--dedupe',
      '--tenant',
      't-1',
      '--json',
    ]);
    expect(options).toMatchObject({
      type: 'card',
      data: { kind: 'text', text: '{"number":"4242424242424242"}', label: '--data' },
      id: 'c-1',
      container: '/pci/low/',
      metadata: { customer: 'c-42', note: 'a=b' },
      mask: '{"number":"{{ data.number | last4 }}"}',
      fingerprintExpression: '{{ data.number }}',
      searchIndexes: ['{{ data | slice: 0, 3 }}', '{{ data }}'],
      expiresAt: '9/27/2030',
      dedupe: true,
      tenant: 't-1',
      json: true,
    });
  });

  it('defaults are absent; --no-dedupe is false; --data-file resolves or reads stdin', async () => {
    expect(await parseOptions(newTokenCreateCommand, [])).toMatchObject({
      type: undefined,
      data: undefined,
      metadata: undefined,
      searchIndexes: undefined,
      dedupe: undefined,
      json: false,
    });
    expect((await parseOptions(newTokenCreateCommand, ['--no-dedupe'])).dedupe).toBe(false);
    expect((await parseOptions(newTokenCreateCommand, ['--data-file', 'd.json'])).data).toMatchObject({
      kind: 'file',
      path: path.join(PARSE_CWD, 'd.json'),
    });
    expect((await parseOptions(newTokenCreateCommand, ['--data-file', '-'])).data).toMatchObject({
      kind: 'stdin',
    });
  });

  it('usage errors: unknown type, --data with --data-file, bad or repeated metadata', async () => {
    expectOneLineError(await runSvc(['token', 'create', '--type', 'cards']), 2, /Allowed choices/);
    expectOneLineError(
      await runSvc(['token', 'create', '--data', '1', '--data-file', 'x']),
      2,
      /cannot be used with/,
    );
    expectOneLineError(await runSvc(['token', 'create', '--metadata', 'novalue']), 2, /Expected key=value/);
    expectOneLineError(
      await runSvc(['token', 'create', '--metadata', 'a=1', '--metadata', 'a=2']),
      2,
      /'a' is given twice/,
    );
  });

  it('without a terminal, --type and the data are required; bad --data never quotes it', async () => {
    expectOneLineError(await runSvc(['token', 'create']), 2, /missing --type and --data or --data-file/);
    const bad = await runSvc(['token', 'create', '--type', 'card_number', '--data', `${SECRET}"`]);
    expectOneLineError(bad, 2, /--data is not valid JSON/);
    expect(bad.stderr).not.toContain(SECRET);
    // A bare value is the usual slip: the error says how to quote it, never echoing it.
    const ssn = await runSvc([
      'token',
      'create',
      '--type',
      'social_security_number',
      '--data',
      '123-45-6789',
    ]);
    expectOneLineError(
      ssn,
      2,
      /--data is not valid JSON \(at column 4\); a text value needs JSON quotes: --data '"…"'/,
    );
    expect(ssn.stderr).not.toContain('123-45-6789');
    const card = await runSvc(['token', 'create', '--type', 'card', '--data', '4242424242424242']);
    expectOneLineError(card, 2, /--data is a JSON number; .*need JSON quotes: --data '\{"number":"…"/);
    expect(card.stderr).not.toContain('4242424242424242');
    const huge = await runSvc(['token', 'create', '--type', 'token', '--data', '42424242424242424242']);
    expectOneLineError(huge, 2, /--data is a JSON number; .*--data '"…"'/);
  });

  it('--mask takes JSON or a bare expression', () => {
    expect(parseMask('{"a":"{{ data.a }}"}')).toEqual({ a: '{{ data.a }}' });
    expect(parseMask('"{{ data }}"')).toBe('{{ data }}');
    expect(parseMask('{{ data | reveal_last: 4 }}')).toBe('{{ data | reveal_last: 4 }}');
    expect(() => parseMask('nope')).toThrow(/--mask is not valid JSON/);
  });
});

describe('svc token get, list, update, delete, search, import', () => {
  it('get: id and --reveal', async () => {
    expect(await parseOptions(newTokenGetCommand, ['tok-1'])).toMatchObject({
      tokenId: 'tok-1',
      reveal: false,
    });
    expect(await parseOptions(newTokenGetCommand, ['tok-1', '--reveal', '--json'])).toMatchObject({
      reveal: true,
      json: true,
    });
  });

  it('list: repeatable and comma-separated filters, pages', async () => {
    expect(await parseOptions(newTokenListCommand, [])).toMatchObject({
      ids: undefined,
      types: undefined,
      metadata: undefined,
      page: 1,
      size: 20,
      reveal: false,
    });
    expect(
      await parseOptions(newTokenListCommand, [
        '--type',
        'card,bank',
        '--type',
        'token',
        '--id',
        'a,b',
        '--metadata',
        'customer=c-42',
        '--metadata',
        'region=eu',
        '--page',
        '3',
        '--size',
        '100',
        '--reveal',
      ]),
    ).toMatchObject({
      types: ['card', 'bank', 'token'],
      ids: ['a', 'b'],
      metadata: { customer: 'c-42', region: 'eu' },
      page: 3,
      size: 100,
      reveal: true,
    });
    expectOneLineError(await runSvc(['token', 'list', '--type', 'nope']), 2, /Allowed choices/);
    expectOneLineError(await runSvc(['token', 'list', '--size', '101']), 2, /between 1 and 100/);
    expectOneLineError(await runSvc(['token', 'list', '--page', '0']), 2, /whole number/);
  });

  it('update: --patch or --patch-file, not both; a patch is required', async () => {
    expect(
      await parseOptions(newTokenUpdateCommand, ['tok-1', '--patch', '{"metadata":{"a":null}}']),
    ).toMatchObject({
      tokenId: 'tok-1',
      patch: { kind: 'text', text: '{"metadata":{"a":null}}' },
    });
    expect((await parseOptions(newTokenUpdateCommand, ['tok-1', '--patch-file', '-'])).patch).toMatchObject({
      kind: 'stdin',
    });
    expectOneLineError(
      await runSvc(['token', 'update', 'x', '--patch', '{}', '--patch-file', 'p']),
      2,
      /cannot be used with/,
    );
    expectOneLineError(await runSvc(['token', 'update', 'x']), 2, /nothing to update/);
    expectOneLineError(await runSvc(['token', 'update', 'x', '--patch', '[]']), 2, /must be a JSON object/);
  });

  it('delete: --yes, required without a terminal', async () => {
    expect(await parseOptions(newTokenDeleteCommand, ['tok-1'], { isTTY: true })).toMatchObject({
      tokenId: 'tok-1',
      yes: false,
    });
    expect((await parseOptions(newTokenDeleteCommand, ['tok-1', '-y'])).yes).toBe(true);
    expectOneLineError(await runSvc(['token', 'delete', 'tok-1']), 2, /pass --yes/);
  });

  it('search: the query and pages', async () => {
    expect(
      await parseOptions(newTokenSearchCommand, ['type:card AND metadata.a:b', '--page', '2', '--size', '5']),
    ).toMatchObject({ query: 'type:card AND metadata.a:b', page: 2, size: 5, reveal: false });
  });

  it('import: file, batch size, dedupe', async () => {
    expect(await parseOptions(newTokenImportCommand, ['in.jsonl'])).toMatchObject({
      source: { kind: 'file', path: path.join(PARSE_CWD, 'in.jsonl') },
      batch: DEFAULT_BATCH,
      dedupe: undefined,
    });
    expect(
      await parseOptions(newTokenImportCommand, ['-', '--batch', '7', '--dedupe', '--json']),
    ).toMatchObject({
      source: { kind: 'stdin' },
      batch: 7,
      dedupe: true,
      json: true,
    });
    expectOneLineError(await runSvc(['token', 'import', 'x', '--batch', '0']), 2, /between 1 and 1000/);
    expectOneLineError(
      await runSvc(['token', 'import', path.join(PARSE_CWD, 'none.jsonl')]),
      2,
      /cannot read the file .*none\.jsonl \(ENOENT\)/,
    );
  });

  it('help documents the exit status of import and the mask default of reads', async () => {
    const importHelp = await runSvc(['token', 'import', '--help']);
    expect(importHelp.code).toBe(0);
    expect(importHelp.stdout).toMatch(/Exit status: 0 when every line was imported/);
    expect(importHelp.stdout).toMatch(/1 when any line was\s+rejected/);
    const getHelp = await runSvc(['token', 'get', '--help']);
    expect(getHelp.stdout).toMatch(/--reveal\s+show the data in plaintext \(default: masked/);
    const root = await runSvc(['--help']);
    expect(root.stdout).toMatch(/tokenize \[options\] \[json\]/);
    expect(root.stdout).toMatch(/token\s+Create, read, list/);
  });
});

describe('secrets stay out of messages', () => {
  it('JSON errors give a position, never the text', () => {
    expect(() => parseJson(`{"n": ${SECRET}x}`, 'x')).toThrow(/^x is not valid JSON \(at column \d+\)$/);
    expect(() => parseJson(`{\n"n":\n ${SECRET}x}`, 'x')).toThrow(/at line 3, column \d+/);
    expect(() => parseJson(' ', 'x')).toThrow(/^x is empty$/);
  });

  it('refuses what the API refuses in a body, by offset: a number JSON.parse would round, a prototype member', () => {
    expect(() => parseJson('{"n": 9007199254740993}', '--data')).toThrow(
      /^--data: The number at offset 6 has more precision than a JSON number can carry here/,
    );
    expect(() => parseJson(`{"__proto__": "${SECRET}"}`, '--data')).toThrow(
      /^--data: The member named __proto__ at offset 1 is not accepted\.$/,
    );
    expect(() => parseJson(`["${SECRET}", "\\ud800"]`, '--data')).toThrow(/lone surrogate/);
    expect(parseJson('{"n": 9007199254740991, "a": "__proto__"}', '--data')).toEqual({
      n: 9007199254740991,
      a: '__proto__',
    });
  });

  it("scrubError removes the input's values from a message and its field errors", () => {
    const secrets = secretsOf({ number: SECRET, nested: ['123-45-6789', 'abc'], n: 12345678 });
    expect([...secrets].sort()).toEqual(['123-45-6789', '12345678', SECRET].sort());
    const error = new VaultError('VALIDATION_FAILED', `bad ${SECRET}`, {
      errors: { 'data.number': [`'${SECRET}' fails`], data: ['123-45-6789!'] },
    });
    const scrubbed = scrubError(error, secrets) as VaultError;
    expect(scrubbed.code).toBe('VALIDATION_FAILED');
    expect(JSON.stringify({ m: scrubbed.message, e: scrubbed.errors })).not.toMatch(/4242|6789/);
    expect(scrubbed.errors).toEqual({ 'data.number': ["'…' fails"], data: ['…!'] });
  });

  it('search: the values of data: and bare terms are scrubbed, field values of other fields kept', () => {
    expect([...queryValues('123-45-6789 AND type:card AND -data:"4242 4242" AND metadata.x:abcdef')]).toEqual(
      ['123-45-6789', '4242 4242'],
    );
  });

  it('import lines: blank lines skipped, rejections name the line and never its content', () => {
    const text = [
      '{"type":"token","data":"first-secret-value"}',
      '',
      `{"type":"card","data":{"number":"${SECRET}"`,
      '[1,2]',
      '{"type":"token","data":"x","container":"/a/"}',
      '   ',
      '{"data":"second-secret"}',
      `{"type":"token","data":"x","4242424242424242":1,"Colour":2}`,
    ].join('\r\n');
    const { pending, rejections, lines } = parseLines(text, false);
    expect(lines).toBe(6);
    expect(pending.map((p) => [p.line, p.request.deduplicate_token])).toEqual([
      [1, false],
      [7, false],
    ]);
    expect(rejections.map((r) => [r.line, r.code])).toEqual([
      [3, 'MALFORMED_JSON'],
      [4, 'USAGE'],
      [5, 'VALIDATION_FAILED'],
      [8, 'VALIDATION_FAILED'],
    ]);
    expect(rejections[2]?.reason).toMatch(/unknown field 'container'/);
    expect(rejections[3]?.reason).toMatch(/unknown fields 'Colour', 1 other/);
    expect(JSON.stringify(rejections)).not.toMatch(/4242|secret/);
  });
});
