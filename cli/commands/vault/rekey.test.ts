import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  makeTempSchemaWithPassword,
  postgresOrSkipNotice,
  type TempSchema,
} from '../../../core/test-support/postgres.ts';
import { expectNoSecret, expectOk, expectOneLineError } from '../../test-support/expect.ts';
import { makeTempHome, randomBase64Key, runSvc, type TempHome } from '../../test-support/harness.ts';

const available = await postgresOrSkipNotice('cli/commands/vault/rekey.test.ts');

/** The password in the temp schema's URL: never printed. */
const PASSWORD = 'pw-never-printed-91c2';

describe.skipIf(!available)('svc vault rekey on a database', () => {
  let home: TempHome;
  let schema: TempSchema;
  let env: ReturnType<TempHome['env']>;
  let id: string;

  beforeEach(async () => {
    home = await makeTempHome();
    schema = await makeTempSchemaWithPassword(PASSWORD);
    env = home.env({ SVC_DATABASE_URL: schema.url });
    expectOk(await runSvc(['init'], { env }));
    expectOk(await runSvc(['tenant', 'create', '--name', 'Keyed', '--owner-email', 'o@keyed.test'], { env }));
    const made = await runSvc(
      ['token', 'create', '--type', 'token', '--data', '"kept across the rekey"', '--json'],
      { env },
    );
    expectOk(made);
    id = (JSON.parse(made.stdout) as { id: string }).id;
  });
  afterEach(async () => {
    await schema.drop();
    await home.cleanup();
  });

  it('refuses a wrong current key (exit 4, nothing changed), then re-wraps the keyring under a new key file', async () => {
    const newKeyFile = path.join(home.dir, 'new.key');
    const wrong = await runSvc(['vault', 'rekey', '--new-key-file', newKeyFile], {
      env: { ...env, SVC_VAULT_KEY: randomBase64Key() },
    });
    expectOneLineError(wrong, 4);
    expectOk(await runSvc(['token', 'get', id], { env }));

    const rekeyed = await runSvc(['vault', 'rekey', '--new-key-file', newKeyFile], { env });
    expectOk(rekeyed);
    expect(rekeyed.stdout).toMatch(
      /^Re-keyed postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/test.*: it is now unlocked by the key file .*new\.key$/m,
    );
    expect(rekeyed.stdout).toContain('Servers running on the database keep serving');
    expectNoSecret(rekeyed, PASSWORD);

    // The old key file no longer opens the vault; the new one reads the same token.
    expectOneLineError(await runSvc(['token', 'get', id], { env }), 4);
    const read = await runSvc(['token', 'get', id, '--reveal', '--json', '--key-file', newKeyFile], { env });
    expectOk(read);
    expect(JSON.parse(read.stdout)).toMatchObject({ id, data: 'kept across the rekey' });
    expectOk(await runSvc(['logs', 'verify', '--key-file', newKeyFile], { env }));
  });

  it('moves the database to a passphrase', async () => {
    const passphrase = 'a passphrase for the database';
    const rekeyed = await runSvc(['vault', 'rekey', '--new-passphrase', '--json'], {
      env: { ...env, SVC_NEW_VAULT_PASSPHRASE: passphrase },
    });
    expectOk(rekeyed);
    expect(JSON.parse(rekeyed.stdout)).toMatchObject({ key_source: 'passphrase', key_file: null });
    expectNoSecret(rekeyed, passphrase, PASSWORD);
    const status = await runSvc(['vault', 'status', '--json'], { env });
    expect(JSON.parse(status.stdout)).toMatchObject({ key_source: 'passphrase' });
    expectOk(await runSvc(['token', 'get', id], { env: { ...env, SVC_VAULT_PASSPHRASE: passphrase } }));
  });
});
