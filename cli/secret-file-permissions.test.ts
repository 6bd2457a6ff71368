import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectOk, expectOneLineError } from './test-support/expect.ts';
import { runSvc, type TempHome } from './test-support/harness.ts';
import { makeInitHome } from './test-support/tenant-home.ts';

/** What another local user could read: the key file decrypts everything, so it is refused. */
describe.skipIf(process.platform === 'win32')('permissions of secret files', () => {
  let home: TempHome;
  const svc = (args: string[], extra: Record<string, string> = {}) => runSvc(args, { env: home.env(extra) });

  beforeEach(async () => {
    home = await makeInitHome();
  });
  afterEach(() => home.cleanup());

  it('refuses a key file readable by others, naming the fix; the flag or env var overrides with a warning', async () => {
    const keyFile = path.join(home.dir, 'vault.key');
    await chmod(keyFile, 0o644);
    const refused = await svc(['tenant', 'list']);
    expectOneLineError(
      refused,
      2,
      /key file .*vault\.key is accessible by other users \(mode 644\); run: chmod 600/,
    );
    expect(refused.stderr).toContain('--allow-insecure-permissions');
    const flagged = await svc(['tenant', 'list', '--allow-insecure-permissions']);
    expectOk(flagged);
    expect(flagged.stderr).toMatch(/warning: key file .*\(mode 644\)/);
    expectOk(await svc(['tenant', 'list'], { SVC_ALLOW_INSECURE_PERMISSIONS: '1' }));
    await chmod(keyFile, 0o600);
    const fixed = await svc(['tenant', 'list']);
    expectOk(fixed);
    expect(fixed.stderr).not.toContain('warning');
  });

  it('warns about a home folder others can enter and a config file with the SMTP password others can read', async () => {
    await chmod(home.dir, 0o755);
    const configFile = path.join(home.dir, 'config.json');
    await writeFile(configFile, JSON.stringify({ smtpUrl: 'smtp://user:s3cret@127.0.0.1:2525' }), {
      mode: 0o644,
    });
    await chmod(configFile, 0o644);
    const result = await svc(['tenant', 'list']);
    expectOk(result);
    expect(result.stderr).toMatch(/warning: home folder .* \(mode 755\); run: chmod 700/);
    expect(result.stderr).toMatch(/warning: config file \(it holds a password\) .*config\.json .*mode 644/);
    expect(result.stderr).not.toContain('s3cret');
    // Without a password in it, the config file holds no secret.
    await writeFile(configFile, JSON.stringify({ logLevel: 'warn' }));
    expect((await svc(['tenant', 'list'])).stderr).not.toContain('config file');
  });
});
