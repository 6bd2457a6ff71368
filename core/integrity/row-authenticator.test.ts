import { sql } from 'kysely';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isVaultError } from '../errors/catalogue.ts';
import { Keyring } from '../crypto/keyring.ts';
import { loadSodium } from '../crypto/sodium.ts';
import type { Sodium } from '../crypto/sodium.ts';
import { openServicesFixture, seedTenant } from '../test-support/services-fixture.ts';
import type { ServicesFixture } from '../test-support/services-fixture.ts';
import { Barrier } from '../vault/barrier.ts';
import {
  RowChangedMeanwhile,
  rowMac,
  updateAuthenticatedRow,
  verifyRow,
  withRowMac,
} from './row-authenticator.ts';
import type { Stored } from './row-authenticator.ts';
import { countRowMacsOutsideTerm } from './stored-row-macs.ts';

const APP = {
  id: '0b6f4a58-5f39-4bd4-8d36-0d54a1b1b6a1',
  tenant_id: 'c4d0d1b4-6d77-4d4f-9bb3-6a1f5f0a0d11',
  type: 'private',
  key_hash: new Uint8Array(32).fill(7),
  permissions: '["token:read"]',
  rules: null,
  expires_at: null,
  can_create_expiring_applications: 0,
};

/** The refusal `fn` throws: its code and message. */
function refusal(fn: () => void): string {
  try {
    fn();
  } catch (error) {
    if (isVaultError(error)) return `${error.code}: ${error.message}`;
    throw error;
  }
  return 'accepted';
}

describe('row MACs', () => {
  let sodium: Sodium;
  let keys: Barrier;
  let stored: Stored<'applications'>;
  beforeAll(async () => {
    sodium = await loadSodium();
  });
  beforeEach(() => {
    keys = new Barrier(sodium, Keyring.create(sodium, new Date()));
    stored = withRowMac(keys, 'applications', APP);
  });

  it('names its term and accepts the row it was computed for', () => {
    expect(stored.row_mac).toMatch(/^v1\.1\.[A-Za-z0-9_-]{43}$/);
    expect(refusal(() => verifyRow(keys, 'applications', stored))).toBe('accepted');
  });

  it.each([
    ['type', { type: 'management' }],
    ['permissions', { permissions: '["token:read","token:create"]' }],
    ['rules (null to a list)', { rules: '[]' }],
    ['key hash', { key_hash: new Uint8Array(32).fill(8) }],
    ['tenant', { tenant_id: 'c4d0d1b4-6d77-4d4f-9bb3-6a1f5f0a0d12' }],
    ['expiry', { expires_at: '2030-01-01T00:00:00.000Z' }],
    ['flag', { can_create_expiring_applications: 1 }],
    ['id (the MAC copied to another row)', { id: '0b6f4a58-5f39-4bd4-8d36-0d54a1b1b6a2' }],
  ])('refuses a changed %s, naming the table and the row but no value', (_what, change) => {
    const changed = { ...stored, ...change };
    const message = refusal(() => verifyRow(keys, 'applications', changed));
    expect(message).toBe(
      `INTEGRITY_FAILED: The applications row id=${changed.id} failed its integrity check and was ` +
        'refused: its content does not match its MAC (changed outside the vault).',
    );
  });

  it('tells text, null and bytes apart (no value encodes as another)', () => {
    const asText = { ...stored, rules: 'null' };
    expect(refusal(() => verifyRow(keys, 'applications', asText))).toMatch(/^INTEGRITY_FAILED/);
    expect(rowMac(keys, 'applications', { ...APP, expires_at: null })).not.toBe(
      rowMac(keys, 'applications', { ...APP, expires_at: '' }),
    );
  });

  it('binds the table: the same values under another table do not verify', () => {
    const session = {
      id: APP.id,
      user_id: APP.tenant_id,
      token_hash: APP.key_hash,
      expires_at: '2030-01-01T00:00:00.000Z',
      row_mac: '',
    };
    const forged = { ...session, row_mac: rowMac(keys, 'sessions', session) };
    expect(refusal(() => verifyRow(keys, 'sessions', forged))).toBe('accepted');
    expect(refusal(() => verifyRow(keys, 'users', { ...forged, email: '', password_hash: null }))).toMatch(
      /^INTEGRITY_FAILED/,
    );
  });

  it('refuses a missing, empty or malformed MAC, and one from another keyring', () => {
    for (const row_mac of [
      '',
      'v1.1.',
      'v2.1.' + 'A'.repeat(43),
      'v1.0.' + 'A'.repeat(43),
      'v1.1.' + 'A'.repeat(43),
    ]) {
      expect(refusal(() => verifyRow(keys, 'applications', { ...stored, row_mac }))).toMatch(
        /^INTEGRITY_FAILED/,
      );
    }
    const other = new Barrier(sodium, Keyring.create(sodium, new Date()));
    expect(refusal(() => verifyRow(other, 'applications', stored))).toMatch(/does not match its MAC/);
  });

  it('says so when the MAC names a key term this process does not hold (another process rotated)', () => {
    const rotated = new Barrier(sodium, keys.current.withNewTerm(new Date()));
    const newer = withRowMac(rotated, 'applications', APP);
    expect(newer.row_mac).toMatch(/^v1\.2\./);
    expect(refusal(() => verifyRow(rotated, 'applications', stored))).toBe('accepted');
    expect(refusal(() => verifyRow(keys, 'applications', newer))).toMatch(
      /names key term 2, which this process does not hold \(after a key rotation by another process, restart this one/,
    );
  });
});

describe('updating an authenticated row', () => {
  let f: ServicesFixture;
  beforeEach(async () => {
    f = await openServicesFixture();
  });
  afterEach(() => f.close());

  const applicationRow = async (id: string) =>
    f.vault.db.selectFrom('applications').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('stores the change with a new MAC, and refuses to vouch for a row someone else changed', async () => {
    const { principal } = await seedTenant(f.services);
    const app = await f.services.applications.create(principal, {
      name: 'a',
      type: 'private',
      permissions: ['token:read'],
    });
    const loaded = await applicationRow(app.id);
    const updated = await f.vault.transaction((trx) =>
      updateAuthenticatedRow(trx, f.vault, 'applications', loaded, { permissions: '[]', name: 'b' }),
    );
    expect(await applicationRow(app.id)).toEqual({ ...updated, can_create_expiring_applications: 0 });
    expect(refusal(() => verifyRow(f.vault, 'applications', updated))).toBe('accepted');
    // An undefined value changes nothing (as in Kysely's `set`), in the row and in its MAC.
    const renamed = await f.vault.transaction((trx) =>
      updateAuthenticatedRow(trx, f.vault, 'applications', updated, { permissions: undefined, name: 'e' }),
    );
    expect(await applicationRow(app.id)).toMatchObject({
      name: 'e',
      permissions: '[]',
      row_mac: renamed.row_mac,
    });
    expect(refusal(() => verifyRow(f.vault, 'applications', renamed))).toBe('accepted');

    // The row as first loaded no longer is the stored one: its MAC does not match any more.
    const stale = f.vault.transaction((trx) =>
      updateAuthenticatedRow(trx, f.vault, 'applications', loaded, { name: 'c' }),
    );
    await expect(stale).rejects.toBeInstanceOf(RowChangedMeanwhile);

    // A tampered row is never re-vouched for by an update.
    await f.vault.transaction((trx) =>
      sql`update applications set permissions = '["token:create"]' where id = ${app.id}`.execute(trx),
    );
    const tampered = await applicationRow(app.id);
    const laundering = f.vault.transaction((trx) =>
      updateAuthenticatedRow(trx, f.vault, 'applications', tampered, { name: 'd' }),
    );
    await expect(laundering).rejects.toMatchObject({ code: 'INTEGRITY_FAILED' });
  });

  it('leaves every row of a new vault under its active key term', async () => {
    await seedTenant(f.services);
    expect(await countRowMacsOutsideTerm(f.vault.db, f.vault.keyTerm)).toBe(0);
  });
});
