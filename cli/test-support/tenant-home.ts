import type { Tenant } from '../../core/services-contract.ts';
import { expectOk } from './expect.ts';
import { makeTempHome, runSvc, type TempHome } from './harness.ts';

export interface TenantHome {
  readonly home: TempHome;
  readonly tenant: Tenant;
}

/**
 * Where most command tests start: a temp home after `svc init`, with one tenant `Acme` whose owner
 * is `owner@example.com` (with `ownerPassword` when given, else without a password).
 */
export async function makeTenantHome(ownerPassword?: string): Promise<TenantHome> {
  const home = await makeTempHome();
  expectOk(await runSvc(['init'], { env: home.env() }));
  const args = ['tenant', 'create', '--name', 'Acme', '--owner-email', 'owner@example.com', '--json'];
  const created = await runSvc(ownerPassword === undefined ? args : [...args, '--owner-password-stdin'], {
    env: home.env(),
    ...(ownerPassword === undefined ? {} : { stdin: ownerPassword }),
  });
  expectOk(created);
  return { home, tenant: (JSON.parse(created.stdout) as { tenant: Tenant }).tenant };
}
