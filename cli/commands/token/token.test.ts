import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Tenant } from '../../../core/services-contract.ts';
import type { TokenView } from '../../../core/tokens/contract.ts';
import { expectNoSecret, expectOk, expectOneLineError } from '../../test-support/expect.ts';
import { runSvc, type TempHome, type TestIoOptions } from '../../test-support/harness.ts';
import { makeTenantHome } from '../../test-support/tenant-home.ts';

/** `svc token …` against a real vault with one tenant, acting as its operator. */

let home: TempHome;
let tenant: Tenant;

const CARD_NUMBER = '4242424242424242';
const CARD = { number: CARD_NUMBER, expiration_month: 12, expiration_year: 2030, cvc: '987' };
const MASKED_CARD = { number: 'XXXXXXXXXXXX4242', expiration_month: 12, expiration_year: 2030 };
const SSN = '123-45-6789';
const PLAIN = 'plain-secret-value';

beforeEach(async () => {
  ({ home, tenant } = await makeTenantHome({ ownerEmail: 'o@example.com' }));
});
afterEach(() => home.cleanup());

const run = (args: string[], options: TestIoOptions = {}) =>
  runSvc(args, { env: home.env(), cwd: home.dir, ...options });
const svc = (...args: string[]) => run(args);

async function createJson(args: string[], options: TestIoOptions = {}): Promise<TokenView> {
  const result = await run(['token', 'create', ...args, '--json'], options);
  expectOk(result);
  return JSON.parse(result.stdout) as TokenView;
}

const createCard = async (...extra: string[]) =>
  createJson(['--type', 'card', '--data', JSON.stringify(CARD), ...extra]);

/** `key<TAB>value` lines of a record printed in a pipe. */
function record(stdout: string): Record<string, string> {
  return Object.fromEntries(
    stdout
      .trimEnd()
      .split('\n')
      .map((line) => line.split('\t') as [string, string]),
  );
}

const rows = (stdout: string): string[][] =>
  stdout === ''
    ? []
    : stdout
        .trimEnd()
        .split('\n')
        .map((line) => line.split('\t'));

describe('svc token create', () => {
  it('creates a token from flags; the response is masked (also for the operator, who could read it)', async () => {
    await writeFile(path.join(home.dir, 'card.json'), JSON.stringify(CARD));
    const result = await run([
      'token',
      'create',
      '--type',
      'card',
      '--data-file',
      'card.json',
      '--container',
      '/pci/low/',
      '--metadata',
      'customer=c-42',
      '--metadata',
      'region=eu',
      '--json',
    ]);
    expectOk(result);
    expectNoSecret(result, CARD_NUMBER, '"cvc"');
    const view = JSON.parse(result.stdout) as TokenView;
    expect(view).toMatchObject({
      tenant_id: tenant.id,
      type: 'card',
      data: MASKED_CARD,
      containers: ['/pci/low/'],
      metadata: { customer: 'c-42', region: 'eu' },
      created_by: null,
    });
    expect(view.fingerprint).toMatch(/^[1-9A-HJ-NP-Za-km-z]+$/);

    const text = await svc(
      'token',
      'create',
      '--type',
      'social_security_number',
      '--data',
      JSON.stringify(SSN),
      '--id',
      'ssn-1',
      '--expires-at',
      '9/27/2030',
    );
    expectOk(text);
    expectNoSecret(text, SSN);
    expect(record(text.stdout)).toMatchObject({
      ID: 'ssn-1',
      Type: 'social_security_number',
      Container: '/pii/high/',
      'Data (masked)': 'XXX-XX-6789',
      'Search indexes': '3',
    });
    expect(record(text.stdout).Expires).toMatch(/^2030-09-27T00:00:00/);
  });

  it('takes its mask, fingerprint expression and search indexes from flags', async () => {
    const view = await createJson([
      '--type',
      'token',
      '--data',
      JSON.stringify({ key: 'sk_live_abcdefgh1234' }),
      '--mask',
      '{{ data.key | reveal_last: 4 }}',
      '--fingerprint-expression',
      '{{ data.key }}',
      '--search-index',
      '{{ data.key | last4 }}',
    ]);
    expect(view).toMatchObject({
      data: 'XXXXXXXXXXXXXXXX1234',
      mask: '{{ data.key | reveal_last: 4 }}',
      fingerprint_expression: '{{ data.key }}',
      search_indexes: ['{{ data.key | last4 }}'],
    });
  });

  it('reads the data from standard input, or asks for type and data on a terminal', async () => {
    const piped = await createJson(['--type', 'social_security_number', '--data-file', '-'], {
      stdin: `${JSON.stringify(SSN)}\n`,
    });
    expect(piped.data).toBe('XXX-XX-6789');

    const asked = await run(['token', 'create', '--json'], {
      isTTY: true,
      answers: ['card', CARD_NUMBER, '12', '2030', '987'],
    });
    expectOk(asked);
    expect(asked.asked).toEqual([
      'Token type:',
      'Card number (hidden):',
      'Expiration month (1-12, empty to skip):',
      'Expiration year (YYYY, empty to skip):',
      'CVC (hidden, empty to skip):',
    ]);
    expectNoSecret(asked, CARD_NUMBER);
    const view = JSON.parse(asked.stdout) as TokenView;
    expect(view.data).toEqual(MASKED_CARD);
    const revealed = await svc('token', 'get', view.id, '--reveal', '--json');
    expect((JSON.parse(revealed.stdout) as TokenView).data).toEqual(CARD);
  });

  it('--dedupe returns the existing token and says so', async () => {
    const first = await createCard('--dedupe');
    const again = await run([
      'token',
      'create',
      '--type',
      'card',
      '--data',
      JSON.stringify(CARD),
      '--dedupe',
      '--json',
    ]);
    expectOk(again);
    expect((JSON.parse(again.stdout) as TokenView).id).toBe(first.id);
    expect(again.stderr).toMatch(/^Duplicate: /);
    const other = await createCard('--no-dedupe');
    expect(other.id).not.toBe(first.id);
  });

  it('validation errors name the fields, exit 2, never show the data, and create nothing', async () => {
    const bad = { ...CARD, number: '4242424242424241' };
    const result = await svc('token', 'create', '--type', 'card', '--data', JSON.stringify(bad));
    expectOneLineError(result, 2, /data\.number: .*Luhn/);
    expectNoSecret(result, '4242424242424241');
    const ssn = await svc('token', 'create', '--type', 'social_security_number', '--data', '"12-345-678"');
    expectOneLineError(ssn, 2, /data: /);
    expectNoSecret(ssn, '12-345-678');
    expectOneLineError(
      await svc('token', 'create', '--type', 'token', '--data', '"x"', '--container', 'nope'),
      2,
      /containers/,
    );
    // Refused as a server refuses the same body, never stored rounded or without the member.
    const rounded = await svc('token', 'create', '--type', 'token', '--data', '{"n":9007199254740993}');
    expectOneLineError(rounded, 2, /--data: The number at offset 5 has more precision/);
    const proto = await svc('token', 'create', '--type', 'token', '--data', '{"__proto__":{"a":"b"}}');
    expectOneLineError(proto, 2, /--data: The member named __proto__ at offset 1 is not accepted/);
    const list = await svc('token', 'list', '--json');
    expect((JSON.parse(list.stdout) as { data: unknown[] }).data).toEqual([]);
  });
});

describe('svc token get', () => {
  it('shows the masked view by default and plaintext only with --reveal', async () => {
    const { id } = await createCard('--metadata', 'customer=c-42');

    const masked = await svc('token', 'get', id);
    expectOk(masked);
    expectNoSecret(masked, CARD_NUMBER, 'cvc');
    expect(record(masked.stdout)).toMatchObject({
      ID: id,
      Tenant: tenant.id,
      Type: 'card',
      Container: '/pci/high/',
      Metadata: 'customer=c-42',
      'Data (masked)': JSON.stringify(MASKED_CARD),
    });

    const maskedJson = await svc('token', 'get', id, '--json');
    expectNoSecret(maskedJson, CARD_NUMBER, 'cvc');
    expect((JSON.parse(maskedJson.stdout) as TokenView).data).toEqual(MASKED_CARD);

    const revealed = await svc('token', 'get', id, '--reveal', '--json');
    expectOk(revealed);
    expect((JSON.parse(revealed.stdout) as TokenView).data).toEqual(CARD);
    expect(record((await svc('token', 'get', id, '--reveal')).stdout).Data).toBe(JSON.stringify(CARD));
  });

  it('a token without a mask shows no data unless revealed', async () => {
    const { id } = await createJson(['--type', 'token', '--data', JSON.stringify(PLAIN)]);
    const masked = await svc('token', 'get', id, '--json');
    expectNoSecret(masked, PLAIN);
    expect(JSON.parse(masked.stdout)).not.toHaveProperty('data');
    expect(record((await svc('token', 'get', id)).stdout)).not.toHaveProperty('Data (masked)');
    expect((JSON.parse((await svc('token', 'get', id, '--reveal', '--json')).stdout) as TokenView).data).toBe(
      PLAIN,
    );
  });

  it('an unknown id is not found (exit 1); an unknown tenant lists the choices', async () => {
    expectOneLineError(
      await svc('token', 'get', 'no-such-token'),
      1,
      /no token no-such-token in this tenant \(see 'npx svc token list'\)/,
    );
    expectOneLineError(await svc('token', 'get', 'x', '--tenant', 'nope'), 1, new RegExp(tenant.id));
  });
});

describe('svc token list', () => {
  let card: TokenView;
  let ssn: TokenView;
  let plain: TokenView;

  beforeEach(async () => {
    card = await createCard('--metadata', 'customer=c-1');
    ssn = await createJson([
      '--type',
      'social_security_number',
      '--data',
      JSON.stringify(SSN),
      '--metadata',
      'customer=c-2',
    ]);
    plain = await createJson([
      '--type',
      'token',
      '--data',
      JSON.stringify(PLAIN),
      '--metadata',
      'customer=C-1',
    ]);
  });

  it('prints id, type, the data as its mask shows it and created; never data in clear', async () => {
    const result = await svc('token', 'list');
    expectOk(result);
    expectNoSecret(result, CARD_NUMBER, SSN, PLAIN);
    const table = rows(result.stdout);
    expect(table.map((r) => r[0]).sort()).toEqual([card.id, ssn.id, plain.id].sort());
    expect(table.find((r) => r[0] === card.id)).toEqual([
      card.id,
      'card',
      JSON.stringify(MASKED_CARD),
      card.created_at,
    ]);
    expect(table.find((r) => r[0] === ssn.id)?.[2]).toBe('XXX-XX-6789');
    // A token without a mask shows no data.
    expect(table.find((r) => r[0] === plain.id)?.[2]).toBe('-');
    // --wide adds the container and the fingerprint.
    const wide = rows((await svc('token', 'list', '--wide')).stdout);
    expect(wide.find((r) => r[0] === card.id)?.slice(4)).toEqual(['/pci/high/', card.fingerprint]);
  });

  it('--json: the API envelope with masked data; --reveal adds the plaintext', async () => {
    const result = await svc('token', 'list', '--json');
    expectOk(result);
    expectNoSecret(result, CARD_NUMBER, SSN, PLAIN);
    const page = JSON.parse(result.stdout) as { pagination: unknown; data: TokenView[] };
    expect(page.pagination).toEqual({ total_items: 3, page_number: 1, page_size: 20, total_pages: 1 });
    const byId = new Map(page.data.map((v) => [v.id, v]));
    expect(byId.get(card.id)?.data).toEqual(MASKED_CARD);
    expect(byId.get(ssn.id)?.data).toBe('XXX-XX-6789');
    expect(byId.get(plain.id)).not.toHaveProperty('data');

    const revealed = await svc('token', 'list', '--reveal');
    const table = rows(revealed.stdout);
    expect(table.find((r) => r[0] === plain.id)?.[2]).toBe(PLAIN);
    expect(table.find((r) => r[0] === ssn.id)?.[2]).toBe(SSN);
    const revealedJson = JSON.parse((await svc('token', 'list', '--reveal', '--json')).stdout) as {
      data: TokenView[];
    };
    expect(revealedJson.data.find((v) => v.id === card.id)?.data).toEqual(CARD);
  });

  it('filters by type, id and metadata (case-insensitive, ANDed)', async () => {
    const ids = async (...args: string[]) => {
      const result = await svc('token', 'list', ...args);
      expectOk(result);
      return rows(result.stdout)
        .map((r) => r[0])
        .sort();
    };
    expect(await ids('--type', 'card,social_security_number')).toEqual([card.id, ssn.id].sort());
    expect(await ids('--type', 'token')).toEqual([plain.id]);
    expect(await ids('--metadata', 'customer=c-1')).toEqual([card.id, plain.id].sort());
    expect(await ids('--metadata', 'customer=c-1', '--type', 'card')).toEqual([card.id]);
    expect(await ids('--id', `${ssn.id},${plain.id}`)).toEqual([ssn.id, plain.id].sort());
    const none = await svc('token', 'list', '--type', 'bank');
    expectOk(none);
    expect(none.stdout).toBe('');
    expect(none.stderr).toMatch(/^No tokens/);
  });

  it('pages: --page and --size, with a footer on stderr', async () => {
    const first = await svc('token', 'list', '--size', '2');
    expect(rows(first.stdout)).toHaveLength(2);
    expect(first.stderr).toBe('Page 1 of 2 (3 tokens); next: --page 2\n');
    const second = await svc('token', 'list', '--size', '2', '--page', '2');
    expect(rows(second.stdout)).toHaveLength(1);
    expect(second.stderr).toBe('Page 2 of 2 (3 tokens)\n');
    const seen = [...rows(first.stdout), ...rows(second.stdout)].map((r) => r[0]).sort();
    expect(seen).toEqual([card.id, ssn.id, plain.id].sort());
    const json = JSON.parse((await svc('token', 'list', '--size', '2', '--page', '2', '--json')).stdout) as {
      pagination: unknown;
      data: unknown[];
    };
    expect(json.pagination).toEqual({ total_items: 3, page_number: 2, page_size: 2, total_pages: 2 });
    expect(json.data).toHaveLength(1);
    expect((await svc('token', 'list', '--page', '9')).stderr).toMatch(/No tokens on page 9 \(3 in all\)/);
  });
});

describe('svc token update', () => {
  it('applies a merge patch from --patch or standard input; the response is masked', async () => {
    const { id } = await createCard('--metadata', 'customer=c-1', '--metadata', 'old=yes');
    const meta = await svc(
      'token',
      'update',
      id,
      '--patch',
      '{"metadata":{"customer":"c-9","old":null}}',
      '--json',
    );
    expectOk(meta);
    expectNoSecret(meta, CARD_NUMBER);
    expect(JSON.parse(meta.stdout)).toMatchObject({ id, metadata: { customer: 'c-9' }, data: MASKED_CARD });

    const data = await run(['token', 'update', id, '--patch-file', '-'], {
      stdin: JSON.stringify({ data: { number: '5555555555554444' } }),
    });
    expectOk(data);
    expectNoSecret(data, '5555555555554444', CARD_NUMBER);
    expect(record(data.stdout)['Data (masked)']).toBe(
      JSON.stringify({ ...MASKED_CARD, number: 'XXXXXXXXXXXX4444' }),
    );
    const revealed = JSON.parse((await svc('token', 'get', id, '--reveal', '--json')).stdout) as TokenView;
    expect(revealed.data).toEqual({ ...CARD, number: '5555555555554444' });
    expect(revealed.metadata).toEqual({ customer: 'c-9' });
  });

  it('an invalid patch is refused by name and changes nothing', async () => {
    const { id } = await createCard();
    const bad = await svc('token', 'update', id, '--patch', '{"data":{"number":"4242424242424241"}}');
    expectOneLineError(bad, 2, /data\.number/);
    expectNoSecret(bad, '4242424242424241');
    const revealed = JSON.parse((await svc('token', 'get', id, '--reveal', '--json')).stdout) as TokenView;
    expect(revealed.data).toEqual(CARD);
    expectOneLineError(await svc('token', 'update', 'missing', '--patch', '{"metadata":{}}'), 1, /no token/);
  });
});

describe('svc token delete', () => {
  it('asks on a terminal; no keeps the token, yes deletes it', async () => {
    const { id } = await createCard();
    const declined = await run(['token', 'delete', id], { isTTY: true, answers: [false] });
    expectOneLineError(declined, 2, /cancelled/);
    expect(declined.asked).toEqual([`Delete token ${id}? Its data cannot be recovered.`]);
    expectOk(await svc('token', 'get', id));

    const confirmed = await run(['token', 'delete', id], { isTTY: true, answers: [true] });
    expectOk(confirmed);
    expect(confirmed.stdout).toBe(`Deleted token ${id}\n`);
    expectOneLineError(await svc('token', 'get', id), 1, /no token/);
  });

  it('--yes deletes without asking; --json says what was deleted', async () => {
    const { id } = await createCard();
    const result = await svc('token', 'delete', id, '--yes', '--json');
    expectOk(result);
    expect(result.asked).toEqual([]);
    expect(JSON.parse(result.stdout)).toEqual({ id, tenant_id: tenant.id, deleted: true });
    expectOneLineError(await svc('token', 'delete', id, '--yes'), 1, /no token/);
  });
});

describe('svc token search', () => {
  it('finds tokens by query; data only with --reveal', async () => {
    const ssn = await createJson(['--type', 'social_security_number', '--data', JSON.stringify(SSN)]);
    await createJson(['--type', 'social_security_number', '--data', '"987-65-4321"']);
    const card = await createCard('--metadata', 'customer=c-42');

    const bySsn = await svc('token', 'search', 'type:social_security_number AND data:6789');
    expectOk(bySsn);
    expectNoSecret(bySsn, SSN);
    expect(rows(bySsn.stdout).map((r) => r[0])).toEqual([ssn.id]);

    const json = await svc('token', 'search', 'metadata.customer:C-42', '--json');
    expectOk(json);
    expectNoSecret(json, CARD_NUMBER);
    const page = JSON.parse(json.stdout) as { pagination: { total_items: number }; data: TokenView[] };
    expect(page.pagination.total_items).toBe(1);
    expect(page.data[0]).toMatchObject({ id: card.id, data: MASKED_CARD });

    const revealed = await svc('token', 'search', `id:${ssn.id}`, '--reveal');
    expect(rows(revealed.stdout)[0]?.[2]).toBe(SSN);
  });

  it('query errors exit 2 with the position, never echoing a typed value', async () => {
    const bare = await svc('token', 'search', '123456789');
    expectOneLineError(bare, 2, /^svc: Invalid search query at position 0: .*needs a field/);
    expectNoSecret(bare, '123456789');
    expectOneLineError(await svc('token', 'search', 'colour:red'), 2, /unknown field 'colour'/);
  });
});
