import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectOk } from '../../test-support/expect.ts';
import { makeTempHome, runSvc, type TempHome } from '../../test-support/harness.ts';
import { initHome } from '../../test-support/tenant-home.ts';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(() => home.cleanup());

describe('svc vault rotate', () => {
  it('moves the vault to a new key term and retires the old one, each time it runs', async () => {
    await initHome(home);
    const first = await runSvc(['vault', 'rotate', '--json'], { env: home.env() });
    expectOk(first);
    expect(JSON.parse(first.stdout)).toMatchObject({ term: 2, retired: [1], resealed: 0 });
    const status = await runSvc(['vault', 'status', '--json'], { env: home.env() });
    expect(JSON.parse(status.stdout)).toMatchObject({ key_terms: [2] });

    const second = await runSvc(['vault', 'rotate'], { env: home.env() });
    expectOk(second);
    expect(second.stdout).toContain('key term 3 is active');
    expect(second.stdout).toContain('retired terms: 2');
    expectOk(await runSvc(['tenant', 'list'], { env: home.env() }));
  });
});
