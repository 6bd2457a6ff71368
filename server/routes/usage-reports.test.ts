import { describe, expect, it } from 'vitest';
import { DEFAULT_INCLUDED_MONTHLY_ACTIVE_TOKENS } from '../../core/tenancy/usage-report.ts';
import { withKey } from '../test-support/identity.ts';
import { useInvitationsWorld } from '../test-support/invitations.ts';
import { TOKEN_PERMISSIONS, privateKey, rule } from '../test-support/tokens.ts';

const world = useInvitationsWorld();

describe('usage report', () => {
  it('counts tokens by type and this month’s active tokens', async () => {
    const tokens = await privateKey(world.server.services, world.a.tenant.id, {
      permissions: TOKEN_PERMISSIONS,
      rules: [rule('/', TOKEN_PERMISSIONS, 'reveal')],
    });
    const created = await world.server.app.inject({
      method: 'POST',
      url: '/tokens',
      headers: withKey(tokens.key),
      payload: { data: 'usage data' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const report = await world.server.app.inject({
      method: 'GET',
      url: '/tenants/self/reports/usage',
      headers: withKey(world.a.admin.key),
    });
    expect(report.statusCode, report.body).toBe(200);
    const body = report.json<{
      token_report: {
        metrics_by_type: Record<string, { count: number; last_created_at?: string }>;
        monthly_active_tokens: number;
        included_monthly_active_tokens: number;
        monthly_active_token_history: Array<{ year: number; month: number; count: number }>;
      };
    }>();
    const total = Object.values(body.token_report.metrics_by_type).reduce((sum, m) => sum + m.count, 0);
    expect(total).toBe(1);
    expect(body.token_report.monthly_active_tokens).toBe(1);
    // The server's configuration names no allowance: the default applies.
    expect(body.token_report.included_monthly_active_tokens).toBe(DEFAULT_INCLUDED_MONTHLY_ACTIVE_TOKENS);
    const now = world.clock.now();
    expect(body.token_report.monthly_active_token_history).toEqual([
      { year: now.getUTCFullYear(), month: now.getUTCMonth() + 1, count: 1 },
    ]);
    const operations = await world.server.app.inject({
      method: 'GET',
      url: '/tenants/self/reports/operations',
      headers: withKey(world.a.admin.key),
    });
    expect(operations.statusCode).toBe(200);
    expect(operations.json()).toMatchObject({ token_report: { monthly_active_tokens: 1 } });
  });
});
