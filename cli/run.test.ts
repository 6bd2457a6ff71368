import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VaultError } from '../core/errors/catalogue.ts';
import { expectNoSecret, expectOk, expectOneLineError } from './test-support/expect.ts';
import { makeTempHome, randomBase64Key, runSvc, type TempHome } from './test-support/harness.ts';
import { initHome } from './test-support/tenant-home.ts';

/** Running layer: real commands against a real vault in a temp SVC_HOME passed through deps. */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(() => home.cleanup());

describe('svc init + svc vault status', () => {
  it('creates a key-file vault and reports it without a key', async () => {
    const init = await runSvc(['init', '--json'], { env: home.env() });
    expectOk(init);
    const created = JSON.parse(init.stdout) as Record<string, unknown>;
    const keyFile = path.join(home.dir, 'vault.key');
    expect(created).toEqual({
      path: path.join(home.dir, 'vault.svc'),
      backend: 'embedded',
      key_source: 'key',
      key_file: keyFile,
      key_file_created: true,
    });
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    expect((await stat(home.dir)).mode & 0o777).toBe(0o700);
    expectNoSecret(init, (await readFile(keyFile, 'utf8')).trim());

    const status = await runSvc(['vault', 'status', '--json'], { env: home.env() });
    expectOk(status);
    const parsed = JSON.parse(status.stdout) as Record<string, unknown>;
    expect(parsed).toMatchObject({
      path: path.join(home.dir, 'vault.svc'),
      key_source: 'key',
      lock_holder: null,
      journal_records: expect.any(Number),
      snapshot_bytes: expect.any(Number),
    });
    expect(parsed.key_terms).toEqual(expect.arrayContaining([expect.any(Number)]));
    // No server holds the vault: its database's size is unknown, the disk is measured.
    expect(parsed.headroom).toMatchObject({
      warn_at: 0.8,
      database: { bytes: null, limit_bytes: 1536 * 1024 * 1024, used: null },
      disk: { free_bytes: expect.any(Number), reserve_bytes: 64 * 1024 * 1024, used: expect.any(Number) },
    });

    const table = await runSvc(['vault', 'status'], { env: home.env() });
    expectOk(table);
    expect(table.stdout).toContain(`Path\t${path.join(home.dir, 'vault.svc')}`);
    expect(table.stdout).toContain('Lock holder\tnone');
    expect(table.stdout).toContain('Database size\tunknown while no server holds the vault, limit 1.5 GiB');
    expect(table.stdout).toMatch(
      /Disk\t[\d.]+ [KMGT]iB free of [\d.]+ [KMGT]iB, 64\.0 MiB kept in reserve; \d+ %/,
    );
  });

  it('never overwrites a vault', async () => {
    expectOk(await runSvc(['init'], { env: home.env() }));
    const again = await runSvc(['init'], { env: home.env() });
    expectOneLineError(again, 1, /already exists/);
  });

  it('honours --path and --key-file', async () => {
    const vaultPath = path.join(home.dir, 'elsewhere', 'v.svc');
    const keyFile = path.join(home.dir, 'keys', 'k.key');
    const init = await runSvc(['init', '--path', vaultPath, '--key-file', keyFile], { env: home.env() });
    expectOk(init);
    expect(init.stdout).toContain(`Created vault at ${vaultPath}`);
    expect(init.stdout).toContain(`Key file: ${keyFile} (generated)`);
    expectOk(
      await runSvc(['vault', 'compact', '--path', vaultPath, '--key-file', keyFile], { env: home.env() }),
    );
  });
});

describe('keys', () => {
  it('wrong SVC_VAULT_KEY → exit 4 with one line, and the key is never printed', async () => {
    await initHome(home);
    const wrong = randomBase64Key();
    const result = await runSvc(['vault', 'compact'], { env: home.env({ SVC_VAULT_KEY: wrong }) });
    expectOneLineError(result, 4);
    expectNoSecret(result, wrong);
  });

  it('a vault made with SVC_VAULT_KEY opens with it and not without it', async () => {
    const key = randomBase64Key();
    const init = await runSvc(['init'], { env: home.env({ SVC_VAULT_KEY: key }) });
    expectOk(init);
    expect(init.stdout).toContain('SVC_VAULT_KEY');
    expectNoSecret(init, key);
    expectOk(await runSvc(['tenant', 'list', '--json'], { env: home.env({ SVC_VAULT_KEY: key }) }));
    const without = await runSvc(['tenant', 'list'], { env: home.env() });
    expectOneLineError(without, 4, /unlocked by a key/);
  });

  it('passphrase vault: env, stdin, prompt; wrong or missing passphrase → exit 4', async () => {
    const passphrase = 'correct horse battery';
    const init = await runSvc(['init', '--passphrase', '--json'], {
      env: home.env({ SVC_VAULT_PASSPHRASE: passphrase }),
    });
    expectOk(init);
    expect(JSON.parse(init.stdout)).toMatchObject({ key_source: 'passphrase', key_file: null });

    const viaEnv = await runSvc(['vault', 'compact', '--json'], {
      env: home.env({ SVC_VAULT_PASSPHRASE: passphrase }),
    });
    expectOk(viaEnv);
    expectNoSecret(viaEnv, passphrase);
    expectOk(
      await runSvc(['tenant', 'list', '--passphrase-stdin'], { env: home.env(), stdin: `${passphrase}\n` }),
    );
    const prompted = await runSvc(['tenant', 'list', '--json'], {
      env: home.env(),
      isTTY: true,
      answers: [passphrase],
    });
    expectOk(prompted);
    expect(prompted.asked).toEqual(['Vault passphrase:']);

    const wrong = await runSvc(['vault', 'compact'], {
      env: home.env({ SVC_VAULT_PASSPHRASE: 'wrong passphrase' }),
    });
    expectOneLineError(wrong, 4);
    expectNoSecret(wrong, 'wrong passphrase');
    expectOneLineError(await runSvc(['vault', 'compact'], { env: home.env() }), 4, /SVC_VAULT_PASSPHRASE/);
  });

  it('init --passphrase on a terminal asks twice; a mismatch asks again (a few times), Ctrl-C exits 2', async () => {
    const mismatch = await runSvc(['init', '--passphrase'], {
      env: home.env(),
      isTTY: true,
      answers: [
        'passphrase 1',
        'passphrase 2',
        'passphrase 3',
        'passphrase 4',
        'passphrase 5',
        'passphrase 6',
      ],
    });
    expect(mismatch.code).toBe(2);
    expect(mismatch.stderr).toMatch(/\nsvc: the passphrases do not match\n$/);
    expect(mismatch.asked).toHaveLength(6);
    const cancelled = await runSvc(['init', '--passphrase'], {
      env: home.env(),
      isTTY: true,
      answers: [new VaultError('CANCELLED', 'cancelled')],
    });
    expectOneLineError(cancelled, 2, /cancelled/);
    const ok = await runSvc(['init', '--passphrase'], {
      env: home.env(),
      isTTY: true,
      answers: ['typed passphrase', 'typed passphrase'],
    });
    expectOk(ok);
    expectNoSecret(ok, 'typed passphrase');
  });

  it('hidden prompts ask again with an empty field: short, mismatched and wrong passphrases', async () => {
    const retyped = await runSvc(['init', '--passphrase', '--json'], {
      env: home.env(),
      isTTY: true,
      // Too short (refused, asked again with an empty field), then a mismatch, then a match.
      answers: ['short', 'first passphrase', 'other passphrase', 'typed passphrase', 'typed passphrase'],
    });
    expectOk(retyped);
    expect(retyped.rejected).toEqual(['A passphrase needs at least 8 characters.']);
    expect(retyped.stderr).toMatch(/passphrases do not match; type it again/);
    expectNoSecret(retyped, 'typed passphrase');
    const reopened = await runSvc(['tenant', 'list', '--json'], {
      env: home.env(),
      isTTY: true,
      answers: ['wrong passphrase', 'typed passphrase'],
    });
    expectOk(reopened);
    expect(reopened.asked).toEqual(['Vault passphrase:', 'Vault passphrase:']);
    expect(reopened.stderr).toMatch(/does not unlock this vault; try again/);
    expectNoSecret(reopened, 'wrong passphrase');
    const giveUp = await runSvc(['tenant', 'list'], {
      env: home.env(),
      isTTY: true,
      answers: ['wrong 1', 'wrong 2', 'wrong 3'],
    });
    expect(giveUp.code).toBe(4);
    expect(giveUp.stderr).toMatch(/\nsvc: The key or passphrase does not unlock this vault\.\n$/);
  });

  it('refuses a short new passphrase', async () => {
    const result = await runSvc(['init', '--passphrase'], {
      env: home.env({ SVC_VAULT_PASSPHRASE: 'short' }),
    });
    expectOneLineError(result, 2, /at least 8/);
  });
});

describe('missing vault → exit 1', () => {
  it.each([
    [['vault', 'status']],
    [['vault', 'compact']],
    [['tenant', 'list']],
    [['app', 'list']],
    [['logs']],
    [['logs', 'verify']],
    [['serve']],
    [['vault', 'backup', 'b']],
  ])('svc %j', async (args) => {
    const result = await runSvc(args, { env: home.env({ SVC_VAULT_KEY: randomBase64Key() }) });
    expectOneLineError(result, 1, /no vault at .*svc init/);
  });
});

describe('backup, restore, rekey', () => {
  it('backs up, refuses to restore over a vault without --yes or confirmation, then restores', async () => {
    await initHome(home);
    const backup = path.join(home.dir, 'b.svcbak');
    const made = await runSvc(['vault', 'backup', backup, '--json'], { env: home.env() });
    expectOk(made);
    expect(JSON.parse(made.stdout)).toMatchObject({ file: backup, bytes: expect.any(Number) });
    expectOneLineError(await runSvc(['vault', 'backup', backup], { env: home.env() }), 1, /already exists/);
    expectOk(await runSvc(['vault', 'backup', backup, '--force'], { env: home.env() }));

    expectOneLineError(
      await runSvc(['vault', 'restore', backup], { env: home.env() }),
      2,
      /replacing the vault at .* needs confirmation; pass --yes/,
    );
    const declined = await runSvc(['vault', 'restore', backup], {
      env: home.env(),
      isTTY: true,
      answers: [false],
    });
    expectOneLineError(declined, 2, /cancelled/);
    const confirmed = await runSvc(['vault', 'restore', backup, '--json'], {
      env: home.env(),
      isTTY: true,
      answers: [true],
    });
    expectOk(confirmed);
    expect(JSON.parse(confirmed.stdout)).toMatchObject({
      path: path.join(home.dir, 'vault.svc'),
      from: backup,
    });
    expectOk(await runSvc(['vault', 'restore', backup, '--yes'], { env: home.env() }));
    // --force, as scripts wrote it before --yes, still answers the question.
    expectOk(await runSvc(['vault', 'restore', backup, '--force'], { env: home.env() }));

    // Restore into a fresh home, with the original key file.
    const other = path.join(home.dir, 'other');
    const keyFile = path.join(home.dir, 'vault.key');
    const fresh = await runSvc(['vault', 'restore', backup, '--key-file', keyFile], {
      env: { SVC_HOME: other },
    });
    expectOk(fresh);
    expectOk(await runSvc(['tenant', 'list', '--key-file', keyFile], { env: { SVC_HOME: other } }));
  });

  it('restore names a missing file, a file that is no backup, and needs --replace-vault for another vault', async () => {
    await initHome(home);
    const missing = path.join(home.dir, 'nope.svcbak');
    expectOneLineError(
      await runSvc(['vault', 'restore', missing, '--force'], { env: home.env() }),
      1,
      new RegExp(`no such file: ${missing}\\n$`),
    );
    const text = path.join(home.dir, 'notes.txt');
    await writeFile(text, 'just some notes, long enough to hold a header prefix and more text\n');
    expectOneLineError(
      await runSvc(['vault', 'restore', text, '--force'], { env: home.env() }),
      1,
      /notes\.txt is not a vault backup\n$/,
    );

    // A backup of another vault (its own home and key file).
    const otherHome = path.join(home.dir, 'other');
    expectOk(await runSvc(['init'], { env: { SVC_HOME: otherHome } }));
    const foreign = path.join(home.dir, 'foreign.svcbak');
    expectOk(await runSvc(['vault', 'backup', foreign], { env: { SVC_HOME: otherHome } }));
    const ids = await Promise.all(
      [home.env(), { SVC_HOME: otherHome }].map(async (env) => {
        const status = await runSvc(['vault', 'status', '--json'], { env });
        return (JSON.parse(status.stdout) as { vault_id: string }).vault_id;
      }),
    );
    const refused = await runSvc(['vault', 'restore', foreign, '--force'], { env: home.env() });
    expectOneLineError(refused, 1, /--replace-vault/);
    for (const id of ids) expect(refused.stderr).toContain(id);
    const otherKey = path.join(otherHome, 'vault.key');
    expectOk(
      await runSvc(['vault', 'restore', foreign, '--force', '--replace-vault', '--key-file', otherKey], {
        env: home.env(),
      }),
    );
  });

  it('rekeys from the key file to a passphrase and on to a new key file', async () => {
    await initHome(home);
    const newPassphrase = 'a brand new passphrase';
    const toPassphrase = await runSvc(['vault', 'rekey', '--new-passphrase'], {
      env: home.env({ SVC_NEW_VAULT_PASSPHRASE: newPassphrase }),
    });
    expectOk(toPassphrase);
    expect(toPassphrase.stdout).toContain('old key file');
    expectNoSecret(toPassphrase, newPassphrase);

    // The old key file is still at the default path; the vault header says "passphrase", so it is skipped.
    const status = await runSvc(['vault', 'status', '--json'], { env: home.env() });
    expect(JSON.parse(status.stdout)).toMatchObject({ key_source: 'passphrase' });
    expectOk(await runSvc(['tenant', 'list'], { env: home.env({ SVC_VAULT_PASSPHRASE: newPassphrase }) }));

    const newKeyFile = path.join(home.dir, 'new.key');
    const toKey = await runSvc(['vault', 'rekey', '--new-key-file', newKeyFile, '--json'], {
      env: home.env({ SVC_VAULT_PASSPHRASE: newPassphrase }),
    });
    expectOk(toKey);
    expect(JSON.parse(toKey.stdout)).toMatchObject({
      key_source: 'key',
      key_file: newKeyFile,
      key_file_created: true,
    });
    expectOneLineError(await runSvc(['tenant', 'list'], { env: home.env() }), 4);
    expectOk(await runSvc(['tenant', 'list', '--key-file', newKeyFile], { env: home.env() }));
    expectOk(await runSvc(['tenant', 'list'], { env: home.env({ SVC_KEY_FILE: newKeyFile }) }));

    const same = await runSvc(['vault', 'rekey', '--new-key-file', newKeyFile], {
      env: home.env({ SVC_KEY_FILE: newKeyFile }),
    });
    expectOneLineError(same, 2, /is the current key file/);
  });
});

describe('svc config', () => {
  it('shows sources and hides secrets', async () => {
    const secretKey = randomBase64Key();
    await writeFile(path.join(home.dir, '..', 'cfg.json'), JSON.stringify({ port: 9999 }));
    const result = await runSvc(['config', '--json', '--host', '::1'], {
      env: home.env({
        SVC_VAULT_KEY: secretKey,
        SVC_VAULT_PASSPHRASE: 'pass phrase secret',
        SVC_CONFIG: path.join(home.dir, '..', 'cfg.json'),
      }),
    });
    expectOk(result);
    expectNoSecret(result, secretKey, 'pass phrase secret');
    const report = JSON.parse(result.stdout) as Record<string, Record<string, unknown>>;
    expect(report.values).toMatchObject({ home: home.dir, port: 9999, host: '::1' });
    expect(report.sources).toMatchObject({ home: 'env', port: 'file', host: 'flag', log_level: 'default' });
    expect(report.secrets).toEqual({
      vault_key: { env: 'SVC_VAULT_KEY', set: true },
      passphrase: { env: 'SVC_VAULT_PASSPHRASE', set: true },
      new_passphrase: { env: 'SVC_NEW_VAULT_PASSPHRASE', set: false },
    });

    const table = await runSvc(['config'], { env: home.env({ SVC_VAULT_KEY: secretKey }) });
    expectOk(table);
    expectNoSecret(table, secretKey);
    expect(table.stdout).toContain('vaultKey\t(set via SVC_VAULT_KEY)\tenv\n');
    expect(table.stdout).toContain('vaultPassphrase\t(not set)\t\n');
    expect(table.stdout).toContain(`home\t${home.dir}\tenv SVC_HOME`);
  });

  it('shows the SMTP server without its password', async () => {
    const env = home.env({ SVC_SMTP_URL: 'smtp://mailer:s3cret-pw@mail.test:587' });
    const table = await runSvc(['config'], { env });
    expectOk(table);
    expectNoSecret(table, 's3cret-pw');
    expect(table.stdout).toContain('smtpUrl\tsmtp://mailer:***@mail.test:587\tenv SVC_SMTP_URL');
    const json = await runSvc(['config', '--json'], { env });
    expectNoSecret(json, 's3cret-pw');
  });

  it('shows the database URL without its password, from the flag, the environment or the file', async () => {
    const url = 'postgres://svc:s3cret-db@db.test:5432/vault?sslmode=verify-full';
    const shown = 'postgres://svc:***@db.test:5432/vault?sslmode=verify-full';
    const fromEnv = await runSvc(['config'], { env: home.env({ SVC_DATABASE_URL: url }) });
    expectOk(fromEnv);
    expectNoSecret(fromEnv, 's3cret-db');
    expect(fromEnv.stdout).toContain(`databaseUrl\t${shown}\tenv SVC_DATABASE_URL`);
    const fromFlag = await runSvc(['config', '--database', url, '--json'], { env: home.env() });
    expectNoSecret(fromFlag, 's3cret-db');
    const report = JSON.parse(fromFlag.stdout) as {
      values: { database_url: string };
      sources: Record<string, string>;
    };
    expect(report.values.database_url).toBe(shown);
    expect(report.sources.database_url).toBe('flag');
    await mkdir(home.dir, { recursive: true });
    await writeFile(path.join(home.dir, 'config.json'), JSON.stringify({ databaseUrl: url }));
    const fromFile = await runSvc(['config'], { env: home.env() });
    expectNoSecret(fromFile, 's3cret-db');
    expect(fromFile.stdout).toMatch(/databaseUrl\tpostgres:\/\/svc:\*\*\*@db\.test.*\tfile /);
    // Another scheme is a usage error that does not echo the value.
    const wrong = await runSvc(['config', '--database', 'mysql://u:s3cret-db@h/db'], { env: home.env() });
    expect(wrong.code).toBe(2);
    expectNoSecret(wrong, 's3cret-db');
  });

  it('refuses the file-only vault commands on a database with exit 2, before asking for a key', async () => {
    const env = home.env({ SVC_DATABASE_URL: 'postgres://svc@127.0.0.1:1/none' });
    for (const args of [
      ['vault', 'backup', path.join(home.dir, 'b.svc')],
      ['vault', 'restore', path.join(home.dir, 'b.svc'), '--force'],
      ['vault', 'compact'],
    ]) {
      const result = await runSvc(args, { env });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(
        /works on the embedded vault file, but this vault is in the database postgres:\/\/svc@127\.0\.0\.1:1\/none/,
      );
      expect(result.asked).toEqual([]);
    }
  });

  it('reports a bad config file in one line, exit 2', async () => {
    const { mkdir } = await import('node:fs/promises');
    await mkdir(home.dir, { recursive: true });
    await writeFile(path.join(home.dir, 'config.json'), JSON.stringify({ colour: true }));
    expectOneLineError(await runSvc(['config'], { env: home.env() }), 2, /unknown key "colour"/);
  });
});

describe('unexpected errors', () => {
  const boom = (): Promise<boolean> => Promise.reject(new Error('boom with a secret inside'));

  it('print a generic line and exit 1', async () => {
    const result = await runSvc(['vault', 'status'], { env: home.env(), vault: { vaultExists: boom } });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('svc: an unexpected error occurred (set SVC_DEBUG=1 for details)\n');
  });

  it('show the stack with SVC_DEBUG=1', async () => {
    const result = await runSvc(['vault', 'status'], {
      env: home.env({ SVC_DEBUG: '1' }),
      vault: { vaultExists: boom },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Error: boom with a secret inside');
    expect(result.stderr).toMatch(/\n\s+at /);
  });
});

describe('--jq', () => {
  it('filters any --json output with jq (strings raw), implies --json, and reports a bad filter as usage', async () => {
    await initHome(home);
    for (const name of ['Acme', 'Beta']) {
      expectOk(
        await runSvc(
          ['tenant', 'create', '--name', name, '--owner-email', `${name.toLowerCase()}@example.com`],
          {
            env: home.env(),
          },
        ),
      );
    }
    const names = await runSvc(['tenant', 'list', '--jq', '.data[].name'], { env: home.env() });
    expectOk(names);
    expect(
      names.stdout
        .split('\n')
        .filter((line) => line !== '')
        .sort(),
    ).toEqual(['Acme', 'Beta']);
    const status = await runSvc(['vault', 'status', '--jq', '{key_source}'], { env: home.env() });
    expectOk(status);
    expect(JSON.parse(status.stdout)).toEqual({ key_source: 'key' });
    // Commands whose output is always JSON take --jq too.
    const tokenized = await runSvc(
      ['tokenize', '--tenant', 'Acme', '{"a":"one secret","b":[1]}', '--jq', '.b'],
      {
        env: home.env(),
      },
    );
    expectOk(tokenized);
    expect(JSON.parse(tokenized.stdout)).toEqual([expect.stringMatching(/^[0-9a-f-]{36}$/)]);
    expect(tokenized.stdout).not.toContain('one secret');
    expectOneLineError(
      await runSvc(['tenant', 'list', '--jq', '.['], { env: home.env() }),
      2,
      /--jq: syntax error/,
    );
  });
});
