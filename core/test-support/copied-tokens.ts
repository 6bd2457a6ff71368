import { expect } from 'vitest';
import { operatorIn, type Principal } from '../access/principal.ts';
import { verifyAuditChains } from '../audit/audit-log.ts';
import type { Services } from '../services-contract.ts';
import type { TokenView } from '../tokens/contract.ts';
import type { VaultHandle } from '../vault/types.ts';
import { seedTenant } from './services-fixture.ts';
import { cardNumber } from './token-kit.ts';

/** A tenant to copy: 30 tokens of both kinds (card numbers, JSON), the second updated, the third deleted. */
export async function fillTenantToCopy(
  services: Services,
): Promise<{ principal: Principal; made: TokenView[]; key: string }> {
  const { tenantId, key } = await seedTenant(services);
  const principal = operatorIn(tenantId);
  const made: TokenView[] = [];
  for (let i = 0; i < 30; i++) {
    const { token } = await services.tokens.create(principal, {
      type: i % 2 === 0 ? 'card_number' : 'token',
      data: i % 2 === 0 ? cardNumber(i) : { n: i },
      metadata: { customer: `c-${i % 3}` },
    } as never);
    made.push(token);
  }
  await services.tokens.update(principal, made[1]!.id, { metadata: { customer: 'moved' } });
  await services.tokens.delete(principal, made[2]!.id);
  return { principal, made, key };
}

/**
 * A vault copied to another backend serves its tokens as the source did: `before` (read from the
 * source) comes back with the same data, fingerprints and metadata; blind indexes and fingerprints
 * still match, so a search and a deduplicated create of `card` (a copied card number) find the old
 * rows; new tokens and audit entries continue after the copied ones and the chains still verify.
 */
export async function expectTokensCarriedOver(
  copy: VaultHandle,
  services: Services,
  principal: Principal,
  before: readonly TokenView[],
  card: TokenView,
): Promise<void> {
  const after = await Promise.all(before.map((t) => services.tokens.get(principal, t.id)));
  expect(after.map((t) => [t.id, t.data, t.fingerprint, t.metadata])).toEqual(
    before.map((t) => [t.id, t.data, t.fingerprint, t.metadata]),
  );
  const listed = await services.tokens.list(
    principal,
    { metadata: { customer: 'c-1' } },
    { page: 1, size: 50 },
  );
  expect(listed.total).toBeGreaterThan(0);
  const again = await services.tokens.create(principal, {
    type: 'card_number',
    data: card.data,
    deduplicate_token: true,
  } as never);
  expect(again.created).toBe(false);
  expect(again.token.id).toBe(card.id);
  const fresh = await services.tokens.create(principal, { type: 'token', data: 'new' } as never);
  expect(fresh.created).toBe(true);
  expect((await verifyAuditChains(copy.db, copy)).ok).toBe(true);
}
