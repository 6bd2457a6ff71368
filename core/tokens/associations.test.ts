import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditRows, codeOf, fieldErrorsOf } from '../test-support/services-fixture.ts';
import { ASSOCIATION_MESSAGES } from './associations.ts';
import { appIn, countRows, openTokenFixture, rule } from '../test-support/token-kit.ts';
import type { TokenFixture } from '../test-support/token-kit.ts';

const PAGE = { page: 1, size: 20 };

describe('token associations', () => {
  let f: TokenFixture;
  let parent: string;
  let child: string;
  beforeEach(async () => {
    f = await openTokenFixture();
    parent = (await f.services.tokens.create(f.app, { id: 'parent', data: 'p' })).token.id;
    child = (
      await f.services.tokens.create(f.app, { id: 'child', type: 'card_number', data: '4242424242424242' })
    ).token.id;
  });
  afterEach(() => f.close());

  const childIds = async (principal = f.app, filter = {}) =>
    (await f.services.tokenAssociations.children(principal, parent, filter, PAGE)).items.map((t) => t.id);

  it('associates, lists, refuses a second link with 409, and dissociates', async () => {
    const links = f.services.tokenAssociations;
    expect(await childIds()).toEqual([]);
    await links.associate(f.app, parent, child);
    const page = await links.children(f.app, parent, {}, PAGE);
    expect(page.total).toBe(1);
    expect(page.items[0]).toMatchObject({ id: child, data: 'XXXXXXXXXXXX4242', containers: ['/pci/high/'] });
    expect(await codeOf(links.associate(f.app, parent, child))).toBe('CONFLICT');
    // The other direction is another link.
    await links.associate(f.app, child, parent);
    expect((await links.children(f.app, child, {}, PAGE)).items.map((t) => t.id)).toEqual([parent]);
    await links.dissociate(f.app, parent, child);
    expect(await childIds()).toEqual([]);
    expect(await codeOf(links.dissociate(f.app, parent, child))).toBe('NOT_FOUND');
  });

  it('audits each change on both tokens, without ids in messages', async () => {
    await f.services.tokenAssociations.associate(f.app, parent, child);
    await f.services.tokenAssociations.dissociate(f.app, parent, child);
    const rows = (await auditRows(f.vault, f.tenantId)).filter((r) => r.operation === 'update');
    expect(rows.map((r) => [r.entity_id, r.entity_type, r.message])).toEqual([
      [parent, 'token', ASSOCIATION_MESSAGES.childAdded],
      [child, 'token', ASSOCIATION_MESSAGES.parentAdded],
      [parent, 'token', ASSOCIATION_MESSAGES.childRemoved],
      [child, 'token', ASSOCIATION_MESSAGES.parentRemoved],
    ]);
  });

  it('filters children by id, type and metadata, and pages them', async () => {
    const links = f.services.tokenAssociations;
    const other = (await f.services.tokens.create(f.app, { id: 'other', data: 'o', metadata: { k: 'V' } }))
      .token.id;
    await links.associate(f.app, parent, child);
    await links.associate(f.app, parent, other);
    expect((await childIds()).sort()).toEqual([child, other].sort());
    expect(await childIds(f.app, { types: ['card_number'] })).toEqual([child]);
    expect(await childIds(f.app, { ids: [other, 'missing'] })).toEqual([other]);
    expect(await childIds(f.app, { metadata: { k: 'v' } })).toEqual([other]);
    expect(await childIds(f.app, { types: ['unknown_type'] })).toEqual([]);
    const sized = await links.children(f.app, parent, {}, { page: 1, size: 0 });
    expect(sized).toEqual({ total: 2, items: [] });
  });

  it('answers 404 for a missing or expired parent or child, and 400 for a token as its own child', async () => {
    const links = f.services.tokenAssociations;
    expect(await codeOf(links.associate(f.app, 'missing', child))).toBe('NOT_FOUND');
    expect(await codeOf(links.associate(f.app, parent, 'missing'))).toBe('NOT_FOUND');
    expect(await codeOf(links.children(f.app, 'missing', {}, PAGE))).toBe('NOT_FOUND');
    expect(await fieldErrorsOf(links.associate(f.app, parent, parent))).toHaveProperty('child_id');
    // Another tenant's tokens do not exist here.
    const stranger = appIn(f.otherTenantId, { permissions: ['token:read', 'token:delete'] });
    expect(await codeOf(links.associate(stranger, parent, child))).toBe('NOT_FOUND');
  });

  it('checks token:read on both for associate and token:delete on both for dissociate', async () => {
    const links = f.services.tokenAssociations;
    const generalOnly = appIn(f.tenantId, {
      rules: [rule(1, '/general/', ['token:read', 'token:delete', 'token:create'], 'reveal')],
    });
    // The child is in a container it may not read: the same 404 as a missing token.
    expect(await codeOf(links.associate(generalOnly, parent, child))).toBe('NOT_FOUND');
    await links.associate(f.app, parent, child);
    expect(await codeOf(links.dissociate(generalOnly, parent, child))).toBe('NOT_FOUND');
    const reader = appIn(f.tenantId, { permissions: ['token:read'] });
    expect(await codeOf(links.dissociate(reader, parent, child))).toBe('FORBIDDEN');
    // Children the caller may not read are not listed.
    expect(await childIds(generalOnly)).toEqual([]);
    expect(await childIds(f.app)).toEqual([child]);
  });

  it('creates a child in one transaction with its link', async () => {
    const links = f.services.tokenAssociations;
    const { token, created } = await links.createChild(f.app, parent, { data: 'kid', metadata: { a: 'b' } });
    expect(created).toBe(true);
    expect(token).toMatchObject({ type: 'token', metadata: { a: 'b' }, containers: ['/general/high/'] });
    expect(await childIds()).toEqual([token.id]);

    const before = await countRows(f, 'tokens');
    expect(await codeOf(links.createChild(f.app, 'missing', { data: 'orphan' }))).toBe('NOT_FOUND');
    expect(
      await fieldErrorsOf(links.createChild(f.app, parent, { type: 'card_number', data: '1' })),
    ).toHaveProperty('data');
    const noParentRead = appIn(f.tenantId, {
      permissions: ['token:create'],
      rules: [rule(1, '/pci/', ['token:read'], 'mask')],
    });
    // A parent outside what it may read is the same 404 as a missing one.
    expect(await codeOf(links.createChild(noParentRead, parent, { data: 'x' }))).toBe('NOT_FOUND');
    expect(await countRows(f, 'tokens')).toBe(before);
  });

  it('links a deduplicated child as it is, but never the parent to itself', async () => {
    const links = f.services.tokenAssociations;
    const again = await links.createChild(f.app, parent, {
      type: 'card_number',
      data: '4242424242424242',
      deduplicate_token: true,
    });
    expect(again).toMatchObject({ created: false, token: { id: child } });
    expect(await childIds()).toEqual([child]);
    // Deduplicating to the parent itself would make it its own child.
    expect(
      await fieldErrorsOf(links.createChild(f.app, parent, { data: 'p', deduplicate_token: true })),
    ).toHaveProperty('data');
  });

  it('goes away with either token', async () => {
    const links = f.services.tokenAssociations;
    await links.associate(f.app, parent, child);
    await f.services.tokens.delete(f.app, child);
    expect(await childIds()).toEqual([]);
    const rows = await f.vault.db.selectFrom('token_associations').selectAll().execute();
    expect(rows).toEqual([]);
    // A new token with the old id does not inherit the link.
    await f.services.tokens.create(f.app, { id: 'child', data: 'new' });
    expect(await childIds()).toEqual([]);
  });
});
