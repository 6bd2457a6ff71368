/**
 * Token data stays secret: never in a log line (down to trace), never in an error, never in
 * plaintext (or base64) in the vault's files or the database's rows.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testBackend } from '../../core/test-support/test-vault.ts';
import { luhnCheckDigit } from '../../core/tokens/luhn.ts';
import type { TenantFixture } from '../test-support/identity.ts';
import { createServerWithTenant } from '../test-support/tenant-server.ts';
import type { TestServer } from '../test-support/test-server.ts';
import type { TokenClient } from '../test-support/tokens.ts';
import { pageOf, REVEALING_GRANTS, tokenClientIn, tokenOf } from '../test-support/tokens.ts';

let server: TestServer;
let a: TenantFixture;
let client: TokenClient;

beforeEach(async () => {
  ({ server, a } = await createServerWithTenant({ logLevel: 'trace' }));
  client = await tokenClientIn(server, a.tenant.id, REVEALING_GRANTS);
});

afterEach(async () => {
  await server.dispose();
});

/** A value no fixture or log line could contain by chance. */
function secret(label: string): string {
  return `${label}-${randomUUID()}-plaintext`;
}

function digits(count: number): string {
  return Array.from({ length: count }, () => String(randomInt(10))).join('');
}

/** A random Luhn-valid card number, and one that fails the check. */
function cardNumbers(): { valid: string; invalid: string } {
  const partial = `4${digits(14)}`;
  const check = luhnCheckDigit(partial);
  return { valid: partial + check, invalid: partial + String((Number(check) + 1) % 10) };
}

describe('token data in logs and errors', () => {
  it('is never logged, whatever the operation or its outcome', async () => {
    const secrets: string[] = [];
    const remember = (value: string) => {
      secrets.push(value);
      return value;
    };
    const card = cardNumbers();
    secrets.push(card.valid, card.invalid);

    // Create, read, list, update, tokenize, search: the happy paths.
    const createdValue = remember(secret('create'));
    const created = tokenOf(
      await client.create({
        data: { value: createdValue },
        search_indexes: ['{{ data.value }}'],
        metadata: { label: 'logged-test' },
      }),
      201,
    );
    const cardToken = tokenOf(await client.create({ type: 'card', data: { number: card.valid } }), 201);
    expect(tokenOf(await client.get(created.id)).data).toEqual({ value: createdValue });
    expect(tokenOf(await client.get(cardToken.id)).data).toEqual({ number: card.valid });
    pageOf(await client.list('metadata.label=logged-test'));
    tokenOf(await client.update(created.id, { data: { more: remember(secret('update')) } }));
    const tokenized = await client.tokenize({
      plain: remember(secret('tokenize-plain')),
      nested: [{ type: 'token', data: remember(secret('tokenize-definition')) }],
    });
    expect(tokenized.statusCode).toBe(200);
    const found = pageOf(await client.search({ query: `data:"${createdValue}"` }));
    expect(found.data.map((t) => t.id)).toEqual([created.id]);

    // Error paths: each response is checked as well as the log.
    const failures = [
      await client.create({ type: 'card', data: { number: card.invalid } }),
      await client.create({ id: created.id, data: remember(secret('duplicate-id')) }),
      await client.create({ data: remember(secret('bad-metadata')), metadata: { k: 'v'.repeat(501) } }),
      await client.create({
        data: { value: remember(secret('empty-index')) },
        search_indexes: ['{{ data.nope }}'],
      }),
      await client.create({
        type: 'social_security_number',
        data: remember(`${digits(3)}-${secret('ssn')}`),
      }),
      await client.tokenize({
        ok: remember(secret('tokenize-rolled-back')),
        bad: { type: 'card', data: { number: card.invalid } },
      }),
      await client.update(created.id, { data: remember(secret('wrong-type')) }, 'application/json'),
      await client.inject({
        method: 'PATCH',
        url: `/tokens/${created.id}`,
        headers: { 'content-type': 'application/merge-patch+json' },
        payload: `{"data": "${remember(secret('malformed-patch'))}"`,
      }),
      await client.inject({
        method: 'POST',
        url: '/tokens',
        headers: { 'content-type': 'application/json' },
        payload: `{"data": "${remember(secret('malformed-create'))}"`,
      }),
      await client.search({ query: `data:"${remember(secret('bad-query'))}` }),
      await client.search({ query: `(data:${remember(secret('bad-query-2'))}` }),
      await client.update(
        created.id,
        { containers: ['/elsewhere/'], data: remember(secret('moved')) },
        'text/plain',
      ),
    ];
    expect(failures.map((response) => response.statusCode)).toEqual([
      400, 409, 400, 400, 400, 400, 415, 400, 400, 400, 400, 415,
    ]);
    for (const response of failures) {
      expect(response.statusCode, response.body).toBeGreaterThanOrEqual(400);
      expect(response.statusCode, response.body).toBeLessThan(500);
      for (const value of secrets)
        expect(response.body, 'token data in an error response').not.toContain(value);
    }

    const text = server.logs.text();
    expect(text).toContain('request completed');
    // Everything above was logged as a request line, and nothing else carried data.
    expect(server.logs.lines().filter((line) => line.msg === 'request completed').length).toBeGreaterThan(15);
    for (const value of secrets) expect(text, 'token data reached the log').not.toContain(value);
    for (const value of secrets) expect(text).not.toContain(Buffer.from(value).toString('base64'));
  });
});

/** Every base64 (and base64url) form in which `value` can appear inside a longer encoded text. */
function base64Needles(value: string): string[] {
  const bytes = Buffer.from(value);
  const needles: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    // Characters that depend on the neighbouring bytes are dropped at both ends.
    const stable = encoded.slice(Math.ceil((8 * offset) / 6), encoded.length - 4);
    needles.push(stable, stable.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return needles;
}

/** Every file under `dir`, the audit segments' folder beside the vault included. */
async function filesOf(dir: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(relative(dir, path), await readFile(path));
  }
  return files;
}

function expectNowhere(files: Map<string, Buffer>, values: readonly string[]): void {
  for (const [name, bytes] of files) {
    const latin1 = bytes.toString('latin1');
    for (const value of values) {
      const forms = [
        value,
        Buffer.from(value, 'utf16le').toString('latin1'),
        Buffer.from(value).toString('hex'),
        ...base64Needles(value),
      ];
      for (const form of forms)
        expect(latin1.includes(form), `${name} holds a form of token data`).toBe(false);
    }
  }
}

describe('base64Needles', () => {
  it('finds a value inside any longer base64 text', () => {
    const value = 'needle-in-a-haystack-0123456789';
    for (let before = 0; before < 6; before++) {
      for (let after = 0; after < 4; after++) {
        const encoded = Buffer.from(`${'x'.repeat(before)}${value}${'y'.repeat(after)}`).toString('base64');
        expect(base64Needles(value).some((needle) => encoded.includes(needle))).toBe(true);
      }
    }
  });
});

/** Stores token data every way a request can (create, nested, a card, tokenize); returns the values. */
async function storeSecrets(): Promise<string[]> {
  const values = [secret('on-disk-string'), secret('on-disk-nested'), secret('on-disk-tokenized')];
  const card = cardNumbers().valid;
  tokenOf(await client.create({ data: values[0], search_indexes: ['{{ data }}'] }), 201);
  tokenOf(await client.create({ data: { deep: { value: values[1] } } }), 201);
  tokenOf(await client.create({ type: 'card', data: { number: card, cvc: '987' } }), 201);
  expect((await client.tokenize({ list: [values[2]] })).statusCode).toBe(200);
  return [...values, card];
}

describe('token data at rest', () => {
  it.skipIf(testBackend() !== 'embedded')(
    'is nowhere in plaintext or base64, neither in the journal nor in the snapshot',
    async () => {
      const all = await storeSecrets();

      // While open: the acknowledged writes sit in the journal.
      const { vault } = server.temp;
      expect((await vault.status()).journal_records).toBeGreaterThan(0);
      const whileOpen = await filesOf(server.temp.dir);
      expect([...whileOpen.keys()]).toEqual(expect.arrayContaining(['vault.svc', 'vault.journal']));
      expectNowhere(whileOpen, all);

      // Closed: everything is in the snapshot.
      await server.app.close();
      await vault.close();
      const closed = await filesOf(server.temp.dir);
      expect(closed.get('vault.svc')?.length).toBeGreaterThan(0);
      expectNowhere(closed, all);
    },
  );

  it.skipIf(testBackend() !== 'postgres')(
    'is nowhere in plaintext or base64 in any row of any table of the database',
    async () => {
      const all = await storeSecrets();
      const { db } = server.temp.vault;
      const tables = await sql<{ name: string }>`
        select tablename as name from pg_tables where schemaname = current_schema()`.execute(db);
      expect(tables.rows.map((t) => t.name)).toContain('tokens');
      const rows = new Map<string, Buffer>();
      for (const { name } of tables.rows) {
        const dump = await sql<{ row: string }>`select t::text as row from ${sql.table(name)} t`.execute(db);
        rows.set(name, Buffer.from(dump.rows.map((r) => r.row).join('\n')));
      }
      expect(rows.get('tokens')?.length).toBeGreaterThan(0);
      expectNowhere(rows, all);
    },
  );
});
