import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ENTITY_TYPES } from '../../core/audit/entity-types.ts';
import { ManualClock } from '../../core/vault/clock.ts';
import { normalizeInstant } from './logs.ts';
import { appendAudit } from '../../core/audit/audit-log.ts';
import {
  asMember,
  createKey,
  createTenantFixture,
  operator,
  signIn,
  type TenantFixture,
} from '../test-support/identity.ts';
import { createTestServer, type TestServer } from '../test-support/test-server.ts';

interface LogJson {
  id: string;
  tenant_id: string;
  actor_id: string | null;
  actor_type: string | null;
  entity_type: string;
  entity_id: string;
  operation: string;
  actor_name: string | null;
  message: string;
  created_at: string;
  entity_ids: string[] | null;
  revealed: boolean | null;
}

interface LogPage {
  pagination: { total_items: number; page_number: number; page_size: number; total_pages: number };
  data: LogJson[];
}

describe('GET /logs', () => {
  const clock = new ManualClock(new Date('2026-03-01T10:00:00.000Z'));
  let server: TestServer;
  let a: TenantFixture;
  let b: TenantFixture;
  /** Applications created one hour apart, by A's admin key over HTTP. */
  const created: Array<{ id: string; at: string }> = [];

  beforeEach(async () => {
    clock.set(new Date('2026-03-01T10:00:00.000Z'));
    server = await createTestServer({ clock });
    a = await createTenantFixture(server.services, 'Tenant A');
    b = await createTenantFixture(server.services, 'Tenant B');
    created.length = 0;
    for (let i = 0; i < 3; i++) {
      clock.advance(60 * 60 * 1000);
      const response = await server.app.inject({
        method: 'POST',
        url: '/applications',
        headers: { 'svc-api-key': a.admin.key },
        payload: { name: `app ${i}`, type: 'management', permissions: ['log:read'] },
      });
      created.push({ id: (response.json() as { id: string }).id, at: clock.now().toISOString() });
    }
  });

  afterEach(async () => {
    await server.dispose();
  });

  const logs = async (query = '', key = a.admin.key) => {
    const response = await server.app.inject({
      method: 'GET',
      url: `/logs${query}`,
      headers: { 'svc-api-key': key },
    });
    return { response, page: response.json() as LogPage };
  };

  it('lists the tenant’s entries newest first, with who did what', async () => {
    const { response, page } = await logs();
    expect(response.statusCode).toBe(200);
    expect(page.data.length).toBeGreaterThanOrEqual(3);
    const times = page.data.map((entry) => entry.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    const newest = page.data[0];
    expect(newest).toMatchObject({
      tenant_id: a.tenant.id,
      actor_id: a.admin.id,
      actor_type: 'application',
      entity_type: 'application',
      entity_id: created[2]?.id,
      operation: 'create',
      created_at: created[2]?.at,
    });
    for (const entry of page.data) expect(entry.tenant_id).toBe(a.tenant.id);
  });

  it('shows another tenant nothing of A', async () => {
    const { page } = await logs('', b.admin.key);
    for (const entry of page.data) expect(entry.tenant_id).toBe(b.tenant.id);
    const ids = new Set(created.map((c) => c.id));
    expect(page.data.some((entry) => ids.has(entry.entity_id))).toBe(false);
  });

  it('pages through the entries', async () => {
    const { page: all } = await logs('?size=100');
    const total = all.pagination.total_items;
    const { page: first } = await logs('?size=2&page=1');
    const { page: second } = await logs('?size=2&page=2');
    expect(first.pagination).toEqual({
      total_items: total,
      page_number: 1,
      page_size: 2,
      total_pages: Math.ceil(total / 2),
    });
    expect([...first.data, ...second.data]).toEqual(all.data.slice(0, 4));
    const { response: tooBig } = await logs('?size=10001');
    expect(tooBig.statusCode).toBe(400);
    const { response: allowed } = await logs('?size=10000');
    expect(allowed.statusCode).toBe(200);
  });

  it('filters by entity type and entity id', async () => {
    const target = created[1]?.id as string;
    const { page: byId } = await logs(`?entity_type=application&entity_id=${target}`);
    expect(byId.data.length).toBeGreaterThanOrEqual(1);
    for (const entry of byId.data)
      expect(entry).toMatchObject({ entity_type: 'application', entity_id: target });
    const { page: byType } = await logs('?entity_type=tenant');
    for (const entry of byType.data) expect(entry.entity_type).toBe('tenant');
    const { response: bad } = await logs('?entity_type=not-a-type!');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ errors: { entity_type: expect.any(Array) } });
  });

  it('filters by start (inclusive) and end (exclusive) dates in any ISO 8601 form', async () => {
    const [first, second, third] = created as unknown as [{ at: string }, { at: string }, { at: string }];
    // The entries of the three applications created in beforeEach (the fixture made others).
    const ids = new Set(created.map((c) => c.id));
    const apps = async (query: string) =>
      (await logs(`?entity_type=application&${query}`)).page.data
        .filter((entry) => ids.has(entry.entity_id))
        .map((entry) => entry.created_at);
    expect(await apps(`start_date=${encodeURIComponent(second.at)}`)).toEqual([third.at, second.at]);
    expect(await apps(`end_date=${encodeURIComponent(second.at)}`)).toEqual([first.at]);
    expect(await apps(`start_date=${first.at}&end_date=${third.at}`)).toEqual([second.at, first.at]);
    // 12:00Z written with a +02:00 offset, and without an offset (read as UTC).
    expect(await apps(`start_date=${encodeURIComponent('2026-03-01T14:00:00+02:00')}`)).toEqual([
      third.at,
      second.at,
    ]);
    expect(await apps('start_date=2026-03-01T12:00:00')).toEqual([third.at, second.at]);
    expect(await apps('start_date=2026-03-02')).toEqual([]);
    expect(await apps('end_date=2026-03-02')).toHaveLength(3);
  });

  it('answers an invalid date with 400 naming the parameter', async () => {
    for (const value of ['yesterday', '2026-02-30', '2026-03-01T25:00:00Z', '1700000000']) {
      const { response } = await logs(`?start_date=${value}&end_date=${value}`);
      expect(response.statusCode, value).toBe(400);
      expect(response.json()).toMatchObject({
        code: 'VALIDATION_FAILED',
        errors: { start_date: expect.any(Array), end_date: expect.any(Array) },
      });
    }
  });

  it('GET /logs/entity-types lists the entity types', async () => {
    const response = await server.app.inject({
      method: 'GET',
      url: '/logs/entity-types',
      headers: { 'svc-api-key': a.admin.key },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(ENTITY_TYPES);
    for (const type of ENTITY_TYPES) {
      expect(type.display_name).toMatch(/^[A-Za-z]+$/);
      expect(type.value).toMatch(/^[A-Za-z]+$/);
    }
  });

  it('every entity type written is listed and filterable, tokens of every type included', async () => {
    const app = await createKey(server.services, a.tenant.id, 'private', ['token:create']);
    const bodies = [
      { type: 'token', data: 'plain' },
      { type: 'card', data: { number: '4242424242424242', expiration_month: 12, expiration_year: 2040 } },
      { type: 'bank', data: { routing_number: '110000000', account_number: '000123456789' } },
      { type: 'card_number', data: '4242424242424242' },
      { type: 'social_security_number', data: '123-45-6789' },
      { type: 'employer_id_number', data: '12-3456789' },
      { type: 'us_bank_routing_number', data: '110000000' },
      { type: 'us_bank_account_number', data: '000123456789' },
    ];
    for (const body of bodies) {
      const made = await server.app.inject({
        method: 'POST',
        url: '/tokens',
        headers: { 'svc-api-key': app.key },
        payload: body,
      });
      expect(made.statusCode, made.body).toBe(201);
    }
    const listed = new Set(ENTITY_TYPES.map((t) => t.value));
    const { page: all } = await logs('?size=1000');
    const written = new Set(all.data.map((entry) => entry.entity_type));
    expect(written).toContain('token');
    for (const type of written) {
      expect(listed).toContain(type);
      const { response, page } = await logs(`?entity_type=${type}&size=1000`);
      expect(response.statusCode).toBe(200);
      expect(page.data.length).toBe(all.data.filter((entry) => entry.entity_type === type).length);
    }
    const { page: tokenEntries } = await logs('?entity_type=token&size=1000');
    expect(tokenEntries.data.length).toBe(6);
  });

  it('names each actor and filters by actor and operation', async () => {
    const token = await signIn(server.services, a.ownerEmail, a.ownerPassword);
    const read = await server.app.inject({
      method: 'GET',
      url: '/tenants/self',
      headers: asMember(token, a.tenant.id),
    });
    expect(read.statusCode).toBe(200);

    const { page: byUser } = await logs('?actor_type=user');
    expect(byUser.data.length).toBeGreaterThanOrEqual(1);
    for (const entry of byUser.data)
      expect(entry).toMatchObject({ actor_type: 'user', actor_id: a.owner.id, actor_name: a.ownerEmail });
    const { page: byAdmin } = await logs(`?actor_id=${a.admin.id}&operation=create`);
    expect(byAdmin.data.map((e) => e.entity_id)).toEqual(created.map((c) => c.id).reverse());
    for (const entry of byAdmin.data)
      expect(entry).toMatchObject({ actor_name: 'Tenant A admin', operation: 'create', revealed: null });
    const { page: byOperator } = await logs('?actor_type=operator');
    expect(byOperator.data.length).toBeGreaterThanOrEqual(1);
    for (const entry of byOperator.data)
      expect(entry).toMatchObject({ actor_id: null, actor_name: 'operator' });

    for (const query of ['?operation=reed', '?actor_type=robot']) {
      const { response } = await logs(query);
      expect(response.statusCode, query).toBe(400);
    }
    expect((await logs('?operation=reed')).response.json()).toMatchObject({
      errors: { operation: expect.any(Array) },
    });
    expect((await logs('?actor_type=robot')).response.json()).toMatchObject({
      errors: { actor_type: expect.any(Array) },
    });
  });

  it('finds an id among the ids one entry stands for, and returns them', async () => {
    const ids = ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002'];
    await server.services.vault.transaction((trx) =>
      appendAudit(trx, server.services.vault, operator(a.tenant.id), {
        tenantId: a.tenant.id,
        entityType: 'token',
        entityId: 'list',
        operation: 'read',
        message: 'Tokens listed',
        entityIds: ids,
        revealed: false,
      }),
    );
    const { page } = await logs(`?entity_id=${ids[1]}`);
    expect(page.data).toHaveLength(1);
    expect(page.data[0]).toMatchObject({ entity_id: 'list', entity_ids: ids, revealed: false });
    expect((await logs('?entity_id=00000000-0000-4000-8000-000000000003')).page.data).toEqual([]);
    expect((await logs(`?entity_id=${ids[0]}`, b.admin.key)).page.data).toEqual([]);
  });

  it('needs log:read', async () => {
    const key = await createKey(server.services, a.tenant.id, 'management', ['application:read']);
    for (const url of ['/logs', '/logs/entity-types']) {
      const response = await server.app.inject({ method: 'GET', url, headers: { 'svc-api-key': key.key } });
      expect(response.statusCode).toBe(403);
    }
  });
});

describe('normalizeInstant', () => {
  it.each([
    ['2026-03-01', '2026-03-01T00:00:00.000Z'],
    ['2026-03-01T12:30:00Z', '2026-03-01T12:30:00.000Z'],
    ['2026-03-01T12:30Z', '2026-03-01T12:30:00.000Z'],
    ['2026-03-01t12:30:00z', '2026-03-01T12:30:00.000Z'],
    ['2026-03-01T12:30:00.123456Z', '2026-03-01T12:30:00.123Z'],
    ['2026-03-01T12:30:00+02:00', '2026-03-01T10:30:00.000Z'],
    ['2026-03-01T00:30:00-01:00', '2026-03-01T01:30:00.000Z'],
    ['2026-03-01T12:30:00', '2026-03-01T12:30:00.000Z'],
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
    ['0001-01-01', '0001-01-01T00:00:00.000Z'],
  ])('%s → %s', (input, expected) => {
    expect(normalizeInstant(input)).toBe(expected);
  });

  it.each([
    '',
    'today',
    '2026-3-1',
    '2026-02-29',
    '2026-13-01',
    '2026-01-01T24:00:00Z',
    '2026-01-01T12:60Z',
    '2026-01-01T12:00:00+24:00',
    '2026-01-01 extra',
  ])('refuses %j', (input) => {
    expect(normalizeInstant(input)).toBeNull();
  });
});
