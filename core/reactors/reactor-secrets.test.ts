import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Principal } from '../access/principal.ts';
import { isSealed } from '../crypto/sealed-text.ts';
import { openServicesFixture } from '../test-support/services-fixture.ts';
import type { ServicesFixture } from '../test-support/services-fixture.ts';
import { placesHolding } from '../test-support/vault-at-rest.ts';
import { rotateKeys } from '../vault/rotation.ts';
import { OFFICIAL_FORMULAS } from './official-formulas.ts';

const SECRET_URL = 'https://api.example/Okapi-Reactor-Secret-4417';

describe('reactor configuration at rest', () => {
  let f: ServicesFixture;
  let operator: Principal;
  beforeEach(async () => {
    f = await openServicesFixture();
    const { tenant } = await f.services.tenants.create({ name: 't', withApplication: false }, null);
    operator = { kind: 'operator', tenantId: tenant.id };
  });
  afterEach(() => f.close());

  it('is sealed in the row, the journal and the snapshot, read back intact, and re-sealed by key rotation', async () => {
    const formula = OFFICIAL_FORMULAS.find((x) => x.configuration.some((c) => c.name === 'url'))!;
    const created = await f.services.reactors.create(operator, {
      name: 'r',
      formula: { id: formula.id },
      configuration: { url: SECRET_URL, method: 'POST' },
    });
    expect(created.configuration).toEqual({ url: SECRET_URL, method: 'POST' });
    const row = await f.vault.db
      .selectFrom('reactors')
      .select('configuration')
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(isSealed(row.configuration)).toBe(true);
    expect(await placesHolding(f.tmp, f.vault.db, 'Okapi')).toEqual([]);
    expect((await f.services.reactors.get(operator, created.id)).configuration).toEqual({
      url: SECRET_URL,
      method: 'POST',
    });

    const result = await rotateKeys(f.vault, f.tmp.key);
    expect(result.resealedReactors).toBe(1);
    expect((await f.services.reactors.get(operator, created.id)).configuration.url).toBe(SECRET_URL);
    await f.vault.compact();
    expect(await placesHolding(f.tmp, f.vault.db, 'Okapi')).toEqual([]);
  });
});
