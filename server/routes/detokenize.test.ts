import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantFixture, operator } from '../test-support/identity.ts';
import { createTestServer, type TestServer } from '../test-support/test-server.ts';
import { privateKey, rule } from '../test-support/tokens.ts';

let server: TestServer;
let cardId: string;
let nameId: string;
let revealKey: string;
let maskKey: string;

const CARD = { number: '4242424242424242', expiration_month: 12, expiration_year: 2030 };

beforeAll(async () => {
  server = await createTestServer();
  const { tenant } = await createTenantFixture(server.services, 'Detokenize');
  const op = operator(tenant.id);
  cardId = (await server.services.tokens.create(op, { type: 'card', data: CARD })).token.id;
  nameId = (await server.services.tokens.create(op, { data: 'Ada' })).token.id;
  revealKey = (
    await privateKey(server.services, tenant.id, { rules: [rule('/pci/', ['token:read'], 'reveal')] })
  ).key;
  maskKey = (await privateKey(server.services, tenant.id, { permissions: ['token:read'] })).key;
});
afterAll(async () => server.dispose());

const detokenize = async (key: string, payload: unknown) => {
  const response = await server.app.inject({
    method: 'POST',
    url: '/detokenize',
    headers: { 'svc-api-key': key, 'content-type': 'application/json' },
    payload: JSON.stringify(payload),
  });
  return { status: response.statusCode, body: JSON.parse(response.body) as unknown };
};

describe('POST /detokenize', () => {
  it('shows data as the token:read transform of each container shows it', async () => {
    const revealed = await detokenize(revealKey, {
      card: `{{ ${cardId} }}`,
      last4: `x{{ ${cardId} | json: '$.number' | last4 }}`,
    });
    expect(revealed).toEqual({ status: 200, body: { card: CARD, last4: 'x4242' } });
    const masked = await detokenize(maskKey, { card: `{{ ${cardId} }}` });
    expect(masked.status).toBe(200);
    expect(JSON.stringify(masked.body)).not.toContain('4242424242424242');
  });

  it('a token outside the token:read containers is answered like an unknown id (400); any JSON value as body', async () => {
    const outside = await detokenize(revealKey, [`{{ ${nameId} }}`]);
    const missing = await detokenize(revealKey, ['{{ nope-nope }}']);
    expect(outside.status).toBe(400);
    expect(JSON.stringify(outside.body).replaceAll(nameId, 'ID')).toBe(
      JSON.stringify(missing.body).replaceAll('nope-nope', 'ID'),
    );
    const unknown = await detokenize(maskKey, ['{{ nope-nope }}']);
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ detail: 'Failed to detokenize some tokens: nope-nope' });
    expect(await detokenize(maskKey, 'plain')).toEqual({ status: 200, body: 'plain' });
  });
});
