import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTokenFixture } from '../test-support/token-kit.ts';
import type { TokenFixture } from '../test-support/token-kit.ts';

describe('tenant setting fingerprint_tokens', () => {
  let f: TokenFixture;
  beforeEach(async () => {
    f = await openTokenFixture();
  });
  afterEach(() => f.close());

  const setSettings = (settings: Record<string, string>) =>
    f.services.tenants.update(f.operator, { name: 'Acme', settings });

  it('fingerprints every token when absent or "true"', async () => {
    const { token } = await f.services.tokens.create(f.app, { data: 'a' });
    expect(token.fingerprint).toEqual(expect.any(String));
    await setSettings({ fingerprint_tokens: 'true' });
    expect((await f.services.tokens.create(f.app, { data: 'b' })).token.fingerprint).toEqual(
      expect.any(String),
    );
  });

  it('"false": no fingerprint with the default expression, so no deduplication', async () => {
    await setSettings({ fingerprint_tokens: 'false', deduplicate_tokens: 'true' });
    const first = await f.services.tokens.create(f.app, { type: 'card_number', data: '4242424242424242' });
    expect(first.token).not.toHaveProperty('fingerprint');
    const second = await f.services.tokens.create(f.app, {
      type: 'card_number',
      data: '4242424242424242',
      deduplicate_token: true,
    });
    expect(second.created).toBe(true);
    expect(second.token.id).not.toBe(first.token.id);
    const tokenized = (await f.services.tokens.tokenize(f.app, { v: { type: 'token', data: 'x' } })) as {
      v: Record<string, unknown>;
    };
    expect(tokenized.v).not.toHaveProperty('fingerprint');
    // The search language cannot find it by fingerprint either: there is none.
    expect((await f.services.tokens.get(f.operator, first.token.id)).fingerprint).toBeUndefined();
  });

  it('"false": a fingerprint expression the caller chose still fingerprints (and deduplicates)', async () => {
    await setSettings({ fingerprint_tokens: 'false' });
    const request = { data: { email: 'a@example.test' }, fingerprint_expression: '{{ data.email }}' };
    const first = await f.services.tokens.create(f.app, request);
    expect(first.token.fingerprint).toEqual(expect.any(String));
    const again = await f.services.tokens.create(f.app, { ...request, deduplicate_token: true });
    expect(again).toMatchObject({ created: false, token: { id: first.token.id } });
  });

  it('takes effect on update: a token written while it is off loses its fingerprint', async () => {
    const { token } = await f.services.tokens.create(f.app, { data: 'a' });
    expect(token.fingerprint).toEqual(expect.any(String));
    await setSettings({ fingerprint_tokens: 'false' });
    const updated = await f.services.tokens.update(f.app, token.id, { metadata: { k: 'v' } });
    expect(updated).not.toHaveProperty('fingerprint');
    await setSettings({});
    const again = await f.services.tokens.update(f.app, token.id, { metadata: { k: 'w' } });
    expect(again.fingerprint).toBe(token.fingerprint);
  });
});
