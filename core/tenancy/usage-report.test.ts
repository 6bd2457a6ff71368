import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codeOf, openServicesFixture, seedTenant } from '../test-support/services-fixture.ts';
import type { ServicesFixture } from '../test-support/services-fixture.ts';
import { operatorIn } from '../access/principal.ts';

describe('usage report', () => {
  let f: ServicesFixture;
  beforeEach(async () => {
    f = await openServicesFixture({
      tenancy: {
        mail: { kind: 'outbox', dir: '/unused', from: 'v@example.com' },
        acceptBaseUrl: 'http://127.0.0.1:8080/invitations/accept',
        includedMonthlyActiveTokens: 50,
      },
    });
  });
  afterEach(() => f.close());

  it('counts tokens created and read this month, per type, with the history', async () => {
    const acme = await seedTenant(f.services, 'Acme');
    const empty = await f.services.usage.report(acme.principal);
    expect(empty).toEqual({
      token_report: {
        metrics_by_type: {},
        included_monthly_active_tokens: 50,
        monthly_active_tokens: 0,
        monthly_active_token_history: [],
      },
    });
    const operator = operatorIn(acme.tenantId);
    const a = await f.services.tokens.create(operator, { type: 'token', data: 'one' });
    await f.services.tokens.create(operator, { type: 'token', data: 'two' });
    // Next month: only the token read counts.
    f.clock.set(new Date('2026-02-03T10:00:00.000Z'));
    await f.services.tokens.get(operator, a.token.id);
    const report = await f.services.usage.report(acme.principal);
    expect(report.token_report).toEqual({
      metrics_by_type: { token: { count: 2, last_created_at: '2026-01-01T00:00:00.000Z' } },
      included_monthly_active_tokens: 50,
      monthly_active_tokens: 1,
      monthly_active_token_history: [
        { year: 2026, month: 1, count: 2 },
        { year: 2026, month: 2, count: 1 },
      ],
    });
    const other = await seedTenant(f.services, 'Other');
    expect((await f.services.usage.report(other.principal)).token_report.monthly_active_tokens).toBe(0);
    const weak = await f.services.applications.create(acme.principal, {
      name: 'w',
      type: 'management',
      permissions: ['tenant:read'],
    });
    const weakPrincipal = await f.services.auth.authenticateApiKey(weak.key);
    if (!weakPrincipal) throw new Error('no principal');
    expect(await codeOf(f.services.usage.report(weakPrincipal))).toBe('FORBIDDEN');
  });
});
