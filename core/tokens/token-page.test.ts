import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Principal } from '../access/principal.ts';
import { createServices } from '../services.ts';
import type { Services } from '../services-contract.ts';
import { auditRows } from '../test-support/services-fixture.ts';
import { FAST_KDF, createTempVault, type TempVault } from '../test-support/temp-vault.ts';
import { appIn, rule } from '../test-support/token-kit.ts';
import { vaultFileBytes } from '../test-support/vault-files.ts';
import { ManualClock } from '../vault/clock.ts';
import { pageEvents } from './token-page.ts';

describe('the audit of a page of tokens', () => {
  it('is one entry per entity type, entity id the kind of page, naming its tokens in order', () => {
    const rows = [
      { tenant_id: 't', id: 'a', type: 'token' },
      { tenant_id: 't', id: 'b', type: 'card' },
      { tenant_id: 't', id: 'c', type: 'social_security_number' },
      { tenant_id: 't', id: 'd', type: 'card' },
    ];
    expect(pageEvents('t', 'search', rows, new Set(['d']))).toEqual([
      {
        tenantId: 't',
        entityType: 'token',
        entityId: 'search',
        entityIds: ['a', 'c'],
        operation: 'read',
        message: 'Tokens searched',
        revealed: false,
      },
      {
        tenantId: 't',
        entityType: 'card',
        entityId: 'search',
        entityIds: ['b', 'd'],
        operation: 'read',
        message: 'Tokens searched',
        revealed: true,
      },
    ]);
    expect(pageEvents('t', 'list', [], new Set())).toEqual([]);
  });
});

/**
 * A redact-only key listing the same tokens again and again: every list is attributable, and the
 * vault grows by one compact entry per request, not by one entry per token shown.
 */
describe('repeated lists on disk (embedded vault)', () => {
  const clock = new ManualClock(new Date('2026-03-01T10:00:00.000Z'));
  let temp: TempVault;
  let services: Services;
  let tenantId: string;

  beforeEach(async () => {
    temp = await createTempVault({ clock });
    services = createServices(temp.vault, { passwordKdf: FAST_KDF });
    ({
      tenant: { id: tenantId },
    } = await services.tenants.create({ name: 'Acme', withApplication: false }, null));
  });
  afterEach(() => temp.dispose());

  it('20 lists of 50 tokens grow the vault files by at most 100 KB, one entry per list', async () => {
    const operator: Principal = { kind: 'operator', tenantId };
    await services.tokens.tokenize(
      operator,
      Array.from({ length: 50 }, (_, i) => ({ type: 'token', data: `customer ${i}` })),
    );
    const redactOnly = appIn(tenantId, { rules: [rule(1, '/', ['token:read'], 'redact')] });
    const before = await vaultFileBytes(temp.vaultPath);
    const pages: string[][] = [];
    for (let i = 0; i < 20; i++) {
      const page = await services.tokens.list(redactOnly, {}, { page: 1, size: 50 });
      expect(page.items).toHaveLength(50);
      expect(page.items.every((t) => !('data' in t))).toBe(true);
      pages.push(page.items.map((t) => t.id));
    }
    const grown = (await vaultFileBytes(temp.vaultPath)) - before;
    expect(grown).toBeLessThanOrEqual(100 * 1024);

    const lists = (await auditRows(temp.vault, tenantId)).filter((e) => e.operation === 'read');
    expect(lists).toHaveLength(20);
    lists.forEach((entry, i) =>
      expect(entry).toMatchObject({
        entity_type: 'token',
        entity_id: 'list',
        entity_ids: JSON.stringify(pages[i]),
        revealed: 0,
      }),
    );
    // Every read stays attributable: the log filtered by one token finds each list that returned it.
    const owner: Principal = { kind: 'operator', tenantId };
    const one = pages[0]![17]!;
    const found = await services.logs.list(
      owner,
      { entityId: one, operation: 'read' },
      { page: 1, size: 100 },
    );
    expect(found.total).toBe(20);
    expect(found.items.every((e) => e.entity_ids?.includes(one) && e.revealed === false)).toBe(true);
  });
});
