import { copyFile, mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  makeTempSchema,
  makeTempSchemaWithPassword,
  postgresOrSkipNotice,
  type TempSchema,
} from '../../../core/test-support/postgres.ts';
import { expectNoSecret, expectOk, expectOneLineError } from '../../test-support/expect.ts';
import { makeTempHome, randomBase64Key, runSvc, type TempHome } from '../../test-support/harness.ts';
import { INIT, preparedHome, tenantCreate } from '../../test-support/tenant-home.ts';

const available = await postgresOrSkipNotice('cli/commands/vault/import.test.ts');

/** The password in the temp schema's URL: never printed. */
const PASSWORD = 'pw-never-printed-7f3a';

describe.skipIf(!available)('svc vault import --from postgres://…', () => {
  let source: TempHome;
  let target: TempHome;
  let schema: TempSchema;
  let url: string;
  const data = ['"plain text"', '{"number":"4242424242424242"}'];
  let ids: string[];

  beforeEach(async () => {
    // A file vault with two tokens (the same for every test: a copy), exported to the database.
    const prepared = await preparedHome([
      INIT,
      tenantCreate('Moved', 'o@moved.test'),
      ...data.map((d) => ({
        args: ['token', 'create', '--type', d.startsWith('{') ? 'card' : 'token', '--data', d, '--json'],
      })),
    ]);
    source = prepared.home;
    ids = prepared.outputs.slice(2).map((out) => (JSON.parse(out) as { id: string }).id);
    target = await makeTempHome();
    schema = await makeTempSchemaWithPassword(PASSWORD);
    url = schema.url;
    expectOk(await runSvc(['vault', 'export', '--to', url], { env: source.env() }));
    // The other home has the same key file, and no vault yet.
    await mkdir(target.dir, { recursive: true, mode: 0o700 });
    await copyFile(path.join(source.dir, 'vault.key'), path.join(target.dir, 'vault.key'));
  });
  afterEach(async () => {
    await schema.drop();
    await source.cleanup();
    await target.cleanup();
  });

  async function tokenViews(home: TempHome): Promise<unknown[]> {
    const views: unknown[] = [];
    for (const id of ids) {
      const got = await runSvc(['token', 'get', id, '--json'], { env: home.env() });
      expectOk(got);
      views.push(JSON.parse(got.stdout));
    }
    return views;
  }

  it('copies the vault into a new file the same key opens: the same token reads, counts and chains checked, no secret printed', async () => {
    const imported = await runSvc(['vault', 'import', '--from', url], { env: target.env() });
    expectOk(imported);
    expect(imported.stdout).toMatch(
      /^Imported postgres:\/\/.* into .*vault\.svc: 2 tokens, \d+ rows in all \(counts checked\), audit chains verified/,
    );
    const key = await readFile(path.join(target.dir, 'vault.key'), 'utf8');
    expectNoSecret(imported, PASSWORD, key.trim(), '4242424242424242', 'plain text');
    expect(await tokenViews(target)).toEqual(await tokenViews(source));
    expectOk(await runSvc(['logs', 'verify'], { env: target.env() }));

    const json = await runSvc(['vault', 'import', '--from', url, '--force', '--json'], { env: target.env() });
    expectOk(json);
    const report = JSON.parse(json.stdout) as {
      vault_id: string;
      replaced: boolean;
      rows: { tokens: number };
    };
    expect(report).toMatchObject({ replaced: true, rows: { tokens: 2 }, chains: { ok: true } });
    expectNoSecret(json, PASSWORD);
  });

  it('refuses to replace an existing vault file without --yes or a yes, and leaves it as it is', async () => {
    expectOk(await runSvc(['vault', 'import', '--from', url], { env: target.env() }));
    // As base64: compared as one string; toEqual walks a Buffer element by element.
    const before = (await readFile(path.join(target.dir, 'vault.svc'))).toString('base64');

    const refused = await runSvc(['vault', 'import', '--from', url], { env: target.env() });
    expectOneLineError(refused, 2, /replacing the vault at .* needs confirmation; pass --yes/);
    const declined = await runSvc(['vault', 'import', '--from', url], {
      env: target.env(),
      isTTY: true,
      answers: [false],
    });
    expectOneLineError(declined, 2, /cancelled; the vault was left as it is/);
    expect(declined.asked[0]).toMatch(/^Replace the vault at .* with postgres:\/\/postgres:\*\*\*@/);
    expect(declined.asked.join('\n')).not.toContain(PASSWORD);
    expectNoSecret(declined, PASSWORD);
    expect((await readFile(path.join(target.dir, 'vault.svc'))).toString('base64')).toBe(before);

    const confirmed = await runSvc(['vault', 'import', '--from', url], {
      env: target.env(),
      isTTY: true,
      answers: [true],
    });
    expectOk(confirmed);
    expect(await tokenViews(target)).toEqual(await tokenViews(source));
  });

  it('refuses a wrong key (exit 4), a vault on a database (usage, exit 2) and an empty database, writing no file', async () => {
    const wrong = await runSvc(['vault', 'import', '--from', url], {
      env: target.env({ SVC_VAULT_KEY: randomBase64Key() }),
    });
    expectOneLineError(wrong, 4);
    expect((await readdir(target.dir)).filter((n) => n.includes('.svc'))).toEqual([]);

    const onDatabase = await runSvc(['vault', 'import', '--from', url], {
      env: target.env({ SVC_DATABASE_URL: url }),
    });
    expectOneLineError(onDatabase, 2, /svc vault import works on the embedded vault file/);
    expectNoSecret(onDatabase, PASSWORD);

    const empty = await makeTempSchema();
    try {
      const none = await runSvc(['vault', 'import', '--from', empty.url], { env: target.env() });
      expectOneLineError(none, 1, /no vault in postgres:/);
    } finally {
      await empty.drop();
    }
    expect((await readdir(target.dir)).filter((n) => n.includes('.svc'))).toEqual([]);
  });
});
