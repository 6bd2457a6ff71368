import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectNoSecret, expectOk, expectOneLineError, withHomeVault } from '../../test-support/expect.ts';
import { runSvc, type TempHome } from '../../test-support/harness.ts';
import { makeTenantHome } from '../../test-support/tenant-home.ts';

/** `svc user passwd` against a real vault: the owner of tenant Acme starts without a password. */

let home: TempHome;
beforeEach(async () => {
  ({ home } = await makeTenantHome());
});
afterEach(() => home.cleanup());

const PASSWORD = 'owner password 123';

describe('svc user passwd', () => {
  it('sets the password from standard input or two prompts; the password is never printed', async () => {
    const fromStdin = await runSvc(['user', 'passwd', 'owner@example.com', '--password-stdin'], {
      env: home.env(),
      stdin: `${PASSWORD}\n`,
    });
    expectOk(fromStdin);
    expect(fromStdin.stdout).toBe('Password set for owner@example.com\n');
    expectNoSecret(fromStdin, PASSWORD);
    await withHomeVault(home, async (_vault, services) => {
      await expect(services.auth.signIn('owner@example.com', PASSWORD, '127.0.0.1')).resolves.toMatchObject({
        token: expect.any(String),
      });
    });

    const second = 'second password 456';
    const prompted = await runSvc(['user', 'passwd', 'owner@example.com', '--json'], {
      env: home.env(),
      isTTY: true,
      answers: [second, second],
    });
    expectOk(prompted);
    expect(prompted.asked).toEqual(['New password for owner@example.com:', 'Repeat the password:']);
    expect(JSON.parse(prompted.stdout)).toMatchObject({ email: 'owner@example.com', password_set: true });
    expectNoSecret(prompted, second);
    await withHomeVault(home, async (_vault, services) => {
      await expect(services.auth.signIn('owner@example.com', second, '127.0.0.1')).resolves.toBeDefined();
    });
  });

  it('unknown user → exit 1; no terminal and no --password-stdin → exit 2; a mismatch asks again', async () => {
    expectOneLineError(
      await runSvc(['user', 'passwd', 'nobody@example.com', '--password-stdin'], {
        env: home.env(),
        stdin: 'x',
      }),
      1,
      /no user with the e-mail nobody@example\.com/,
    );
    expectOneLineError(
      await runSvc(['user', 'passwd', 'owner@example.com'], { env: home.env() }),
      2,
      /--password-stdin/,
    );
    // A short password is refused at its prompt and asked again; a mismatch asks for both again.
    const retyped = await runSvc(['user', 'passwd', 'owner@example.com'], {
      env: home.env(),
      isTTY: true,
      answers: [PASSWORD, 'different', 'short', PASSWORD, PASSWORD],
    });
    expectOk(retyped);
    expect(retyped.rejected).toHaveLength(1);
    expect(retyped.stderr).toContain('The passwords do not match; type it again.');
    expectNoSecret(retyped, PASSWORD);
  });
});
