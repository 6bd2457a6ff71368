import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TenantFixture } from '../test-support/identity.ts';
import type { TestServer } from '../test-support/test-server.ts';
import {
  createTokenServer,
  pageOf,
  privateKey,
  rule,
  TOKEN_PERMISSIONS,
  TokenClient,
  tokenOf,
} from '../test-support/tokens.ts';

const CARD = { number: '4242424242424242', expiration_month: 12, expiration_year: 2030 };
const MASKED_CARD = { number: 'XXXXXXXXXXXX4242', expiration_month: 12, expiration_year: 2030 };
const PCI_HIGH = { classification: 'pci', impact_level: 'high', restriction_policy: 'mask' };

let server: TestServer;
let a: TenantFixture;
let client: TokenClient;

beforeEach(async () => {
  ({ server, a, client } = await createTokenServer());
});

afterEach(async () => {
  await server.dispose();
});

describe('privacy', () => {
  it('is in the responses of create, get, list, search, tokenize and update', async () => {
    const created = tokenOf(await client.create({ type: 'card', data: CARD }), 201);
    expect(created.privacy).toEqual(PCI_HIGH);
    expect(tokenOf(await client.get(created.id)).privacy).toEqual(PCI_HIGH);
    expect(pageOf(await client.list()).data[0]?.privacy).toEqual(PCI_HIGH);
    expect(pageOf(await client.search({ query: `id:"${created.id}"` })).data[0]?.privacy).toEqual(PCI_HIGH);
    const tokenized = (await client.tokenize({ type: 'token', data: 'x' })).json() as { privacy: unknown };
    expect(tokenized.privacy).toEqual({
      classification: 'general',
      impact_level: 'high',
      restriction_policy: 'mask',
    });
    // Moving needs token:read with reveal.
    const mover = await privateKey(server.services, a.tenant.id, {
      permissions: TOKEN_PERMISSIONS,
      rules: [rule('/', ['token:read'], 'reveal')],
    });
    const moved = tokenOf(
      await new TokenClient(server.app, mover.key).update(created.id, { containers: ['/pci/low/'] }),
    );
    expect(moved.privacy).toEqual({ ...PCI_HIGH, impact_level: 'low' });
  });

  it('chooses the container on create, alone or agreeing with containers', async () => {
    const chosen = tokenOf(
      await client.create({ data: 'x', privacy: { classification: 'pii', impact_level: 'low' } }),
      201,
    );
    expect(chosen.containers).toEqual(['/pii/low/']);
    // What older clients sent: containers together with a restriction policy.
    const both = tokenOf(
      await client.create({
        data: 'y',
        containers: ['/general/high/'],
        privacy: { restriction_policy: 'mask' },
      }),
      201,
    );
    expect(both.containers).toEqual(['/general/high/']);
  });

  it('refuses a contradiction, an unknown level and the redact policy with 400, creating nothing', async () => {
    for (const [privacy, field] of [
      [{ classification: 'pii' }, 'privacy.classification'],
      [{ impact_level: 'low' }, 'privacy.impact_level'],
    ] as const) {
      const response = await client.create({ type: 'card', data: CARD, containers: ['/pci/high/'], privacy });
      expect(response.statusCode, response.body).toBe(400);
      expect((response.json() as { errors: Record<string, string[]> }).errors).toHaveProperty([field]);
    }
    for (const privacy of [{ impact_level: 'extreme' }, { restriction_policy: 'redact' }]) {
      const response = await client.create({ data: 'x', privacy });
      expect(response.statusCode, JSON.stringify(privacy)).toBe(400);
      expect(response.json()).toHaveProperty('errors');
    }
    expect(pageOf(await client.list()).pagination.total_items).toBe(0);
  });

  it('is documented in /openapi.json on the token and the create request', async () => {
    const doc = (await server.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { requestBody?: unknown; responses: Record<string, unknown> }>>;
    };
    const create = JSON.stringify(doc.paths['/tokens']?.post);
    expect(create).toContain('"privacy"');
    expect(create).toContain('restriction_policy');
  });
});

describe('create and update responses follow the caller’s transform', () => {
  it('masks for a plain permission and reveals for a rule that reveals on create and update', async () => {
    const masked = tokenOf(await client.create({ type: 'card', data: CARD }), 201);
    expect(masked.data).toEqual(MASKED_CARD);
    expect(tokenOf(await client.update(masked.id, { metadata: { a: 'b' } })).data).toEqual(MASKED_CARD);

    const app = await privateKey(server.services, a.tenant.id, {
      rules: [rule('/pci/', ['token:create', 'token:update', 'token:read'], 'reveal')],
    });
    const revealer = new TokenClient(server.app, app.key);
    const revealed = tokenOf(await revealer.create({ type: 'card', data: CARD }), 201);
    expect(revealed.data).toEqual(CARD);
    expect(tokenOf(await revealer.update(revealed.id, { metadata: { a: 'b' } })).data).toEqual(CARD);
    const tokenized = (await revealer.tokenize({ c: { type: 'card', data: CARD } })).json() as {
      c: { data: unknown };
    };
    expect(tokenized.c.data).toEqual(CARD);

    // A rule that reveals only on read does not reveal on create.
    const reader = await privateKey(server.services, a.tenant.id, {
      permissions: ['token:create'],
      rules: [rule('/pci/', ['token:read'], 'reveal')],
    });
    const readOnlyRevealer = new TokenClient(server.app, reader.key);
    expect(tokenOf(await readOnlyRevealer.create({ type: 'card', data: CARD }), 201).data).toEqual(
      MASKED_CARD,
    );
  });

  it('shows less when the caller asks with SVC-VIEW: mask, never more, and refuses another view', async () => {
    const app = await privateKey(server.services, a.tenant.id, {
      rules: [rule('/pci/', ['token:create', 'token:read'], 'reveal')],
    });
    const revealer = new TokenClient(server.app, app.key);
    const id = tokenOf(await revealer.create({ type: 'card', data: CARD }), 201).id;
    const read = (view: string) =>
      revealer.inject({ method: 'GET', url: `/tokens/${id}`, headers: { 'svc-view': view } });
    expect(tokenOf(await read('mask')).data).toEqual(MASKED_CARD);
    expect(tokenOf(await read('reveal')).data).toEqual(CARD);
    const masked = await client.inject({
      method: 'GET',
      url: `/tokens/${id}`,
      headers: { 'svc-view': 'reveal' },
    });
    expect(tokenOf(masked).data).toEqual(MASKED_CARD);
    const refused = await read('plain');
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ errors: { 'SVC-VIEW': ['must be mask or reveal'] } });
  });

  it('says so in /openapi.json', async () => {
    const doc = JSON.stringify((await server.app.inject({ method: 'GET', url: '/openapi.json' })).json());
    expect(doc).not.toContain('Create, update and tokenize responses are masked.');
    expect(doc).toContain('masked unless a rule of the caller reveals for token:create');
  });
});
