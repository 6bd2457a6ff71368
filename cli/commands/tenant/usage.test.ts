import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { UsageReport } from '../../../core/tenancy/contract.ts';
import type { TokenView } from '../../../core/tokens/contract.ts';
import { expectOk } from '../../test-support/expect.ts';
import { runSvc, type TempHome } from '../../test-support/harness.ts';
import { makeTenantHome } from '../../test-support/tenant-home.ts';

/** `svc tenant usage` against a real vault: tokens created and read through the CLI this month. */

let home: TempHome;
beforeEach(async () => {
  ({ home } = await makeTenantHome({ ownerEmail: 'o@example.com' }));
});
afterEach(() => home.cleanup());

const svc = (...args: string[]) => runSvc(args, { env: home.env() });

async function createToken(type: string, data: unknown): Promise<TokenView> {
  const result = await svc('token', 'create', '--type', type, '--data', JSON.stringify(data), '--json');
  expectOk(result);
  return JSON.parse(result.stdout) as TokenView;
}

describe('svc tenant usage', () => {
  it('a new tenant: no tokens, nothing active; the included number from the defaults', async () => {
    const result = await svc('tenant', 'usage', '--json');
    expectOk(result);
    const report = JSON.parse(result.stdout) as UsageReport;
    expect(report.token_report.metrics_by_type).toEqual({});
    expect(report.token_report.monthly_active_tokens).toBe(0);
    expect(report.token_report.included_monthly_active_tokens).toEqual(expect.any(Number));
    const text = await svc('tenant', 'usage');
    expect(text.stdout).toContain('Tokens by type: none\n');
    expect(text.stdout).toMatch(/Monthly active tokens: 0 of \d+ included\n/);
  });

  it('counts tokens created and read this month, each once; by type; with this month in the history', async () => {
    const a = await createToken('token', 'first');
    await createToken('token', 'second');
    await createToken('social_security_number', '123-45-6789');
    expectOk(await svc('token', 'get', a.id));
    expectOk(await svc('token', 'get', a.id));

    const result = await svc('tenant', 'usage', '--json');
    expectOk(result);
    const { token_report: report } = JSON.parse(result.stdout) as UsageReport;
    expect(report.metrics_by_type).toMatchObject({
      token: { count: 2, last_created_at: expect.any(String) },
      social_security_number: { count: 1 },
    });
    expect(report.monthly_active_tokens).toBe(3);
    const now = new Date();
    expect(report.monthly_active_token_history).toContainEqual({
      year: now.getUTCFullYear(),
      month: now.getUTCMonth() + 1,
      count: 3,
    });

    const text = await svc('tenant', 'usage');
    expectOk(text);
    expect(text.stdout).toContain('Tokens by type:\n');
    expect(text.stdout).toMatch(/^social_security_number\t1\t\S+$/m);
    expect(text.stdout).toMatch(/^token\t2\t\S+$/m);
    expect(text.stdout).toMatch(/Monthly active tokens: 3 of \d+ included/);
    const month = `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
    expect(text.stdout).toMatch(new RegExp(`History:\\n(.*\\n)*${month}\\t3\\n`));
  });
});
