import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VaultError } from '../../../core/errors/catalogue.ts';
import type { ApplicationWithKey, Tenant, User } from '../../../core/services-contract.ts';
import {
  expectNoSecret,
  expectOk,
  expectOneLineError,
  expectShownOnce,
  withHomeVault,
  listData,
} from '../../test-support/expect.ts';
import { runSvc, type TempHome } from '../../test-support/harness.ts';
import { makeInitHome } from '../../test-support/tenant-home.ts';

/** `svc tenant create|list|show` against a real vault in a temp home. */

let home: TempHome;
beforeEach(async () => {
  home = await makeInitHome();
});
afterEach(() => home.cleanup());

interface Created {
  readonly tenant: Tenant;
  readonly owner: User | null;
  readonly application: ApplicationWithKey | null;
}

const PASSWORD = 'owner password 123';

describe('svc tenant create', () => {
  it('prints tenant, owner, application and the key once; the key and the password work', async () => {
    const result = await runSvc(
      ['tenant', 'create', '--name', 'Acme', '--owner-email', 'owner@example.com', '--owner-password-stdin'],
      { env: home.env(), stdin: `${PASSWORD}\n` },
    );
    expectOk(result);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    const tenantId = /^Tenant: (\S+) \(Acme\)$/.exec(lines[0] ?? '')?.[1];
    expect(lines[1]).toMatch(/^Owner: owner@example\.com \(\S+\)$/);
    const applicationId = /^Application: (\S+) \(.+, management\)$/.exec(lines[2] ?? '')?.[1];
    const key = /^Management API key \(shown once\): (key_\S+)$/.exec(lines[3] ?? '')?.[1] ?? '';
    expect(tenantId).toBeDefined();
    expect(key).not.toBe('');
    expectShownOnce(result, key);
    expectNoSecret(result, PASSWORD);
    expect(result.stderr).toBe('');

    await withHomeVault(home, async (_vault, services) => {
      const principal = await services.auth.authenticateApiKey(key);
      expect(principal).toMatchObject({ kind: 'application', tenantId, applicationId });
      const session = await services.auth.signIn('owner@example.com', PASSWORD, '127.0.0.1');
      expect(session.token).toEqual(expect.any(String));
    });
  });

  it('--json: one object with tenant, owner and application (its key once); no password → a hint', async () => {
    const result = await runSvc(
      ['tenant', 'create', '--name', 'Acme', '--owner-email', 'owner@example.com', '--json'],
      { env: home.env() },
    );
    expectOk(result);
    const created = JSON.parse(result.stdout) as Created;
    expect(created.tenant).toMatchObject({ name: 'Acme', owner_id: created.owner?.id });
    expect(created.owner).toMatchObject({ email: 'owner@example.com' });
    expect(created.application).toMatchObject({ tenant_id: created.tenant.id, type: 'management' });
    expect(created.application?.key).toMatch(/^key_/);
    expectShownOnce(result, created.application?.key ?? '');
    expect(result.stderr).toBe(
      'No password set for owner@example.com; set one later with: npx svc user passwd owner@example.com\n',
    );
  });

  it('on a terminal asks for missing values and the password twice (empty skips)', async () => {
    const prompted = await runSvc(['tenant', 'create'], {
      env: home.env(),
      isTTY: true,
      answers: ['Acme', 'owner@example.com', PASSWORD, PASSWORD],
    });
    expectOk(prompted);
    expect(prompted.asked).toEqual([
      'Tenant name:',
      "Owner's e-mail:",
      'Password for owner@example.com (empty to skip):',
      'Repeat the password:',
    ]);
    expectNoSecret(prompted, PASSWORD);

    const skipped = await runSvc(['tenant', 'create', '--name', 'Beta', '--owner-email', 'b@example.com'], {
      env: home.env(),
      isTTY: true,
      answers: [''],
    });
    expectOk(skipped);
    expect(skipped.asked).toEqual(['Password for b@example.com (empty to skip):']);
    expect(skipped.stderr).toContain('svc user passwd b@example.com');

    // An existing user is not asked for a password: theirs stays.
    const existing = await runSvc(['tenant', 'create', '--name', 'Gamma', '--owner-email', 'b@example.com'], {
      env: home.env(),
      isTTY: true,
    });
    expectOk(existing);
    expect(existing.asked).toEqual([]);
  });

  it('mismatched passwords ask again, then exit 2; Ctrl-C exits 2; both create nothing', async () => {
    const mismatch = await runSvc(['tenant', 'create', '--name', 'Acme', '--owner-email', 'o@example.com'], {
      env: home.env(),
      isTTY: true,
      answers: [PASSWORD, 'something else', PASSWORD, 'something else', PASSWORD, 'something else'],
    });
    expect(mismatch.code).toBe(2);
    expect(mismatch.stderr.match(/The passwords do not match; type it again\./g)).toHaveLength(2);
    expect(mismatch.stderr).toMatch(/\nsvc: the passwords do not match\n$/);
    expectNoSecret(mismatch, PASSWORD, 'something else');
    const cancelled = await runSvc(['tenant', 'create'], {
      env: home.env(),
      isTTY: true,
      answers: [new VaultError('CANCELLED', 'cancelled')],
    });
    expectOneLineError(cancelled, 2, /cancelled/);
    const list = await runSvc(['tenant', 'list', '--json'], { env: home.env() });
    expect(listData(list.stdout)).toEqual([]);
  });

  it('without a terminal, missing values are a usage error', async () => {
    expectOneLineError(
      await runSvc(['tenant', 'create', '--owner-email', 'o@example.com'], { env: home.env() }),
      2,
      /missing --name \(required when not on a terminal\)/,
    );
    expectOneLineError(
      await runSvc(['tenant', 'create'], { env: home.env() }),
      2,
      /missing --name and --owner-email/,
    );
    expectOneLineError(
      await runSvc(
        ['tenant', 'create', '--name', 'A', '--owner-email', 'o@example.com', '--owner-password-stdin'],
        {
          env: home.env(),
          stdin: '',
        },
      ),
      2,
      /no password on standard input/,
    );
  });

  it('a validation failure names the field and exits 2', async () => {
    const result = await runSvc(['tenant', 'create', '--name', 'Acme', '--owner-email', 'not-an-address'], {
      env: home.env(),
    });
    expectOneLineError(result, 2, /^svc: [^\n]*email[^\n]*: /i);
  });
});

describe('svc tenant list and show', () => {
  async function createTenant(name: string, email: string): Promise<Created> {
    const result = await runSvc(['tenant', 'create', '--name', name, '--owner-email', email, '--json'], {
      env: home.env(),
    });
    expectOk(result);
    return JSON.parse(result.stdout) as Created;
  }

  it('lists tenants (JSON, and tab-separated in a pipe) and shows the only one without --tenant', async () => {
    const empty = await runSvc(['tenant', 'list'], { env: home.env() });
    expectOk(empty);
    expect(empty.stdout).toBe('');
    expect(empty.stderr).toContain('No tenants yet');

    const acme = await createTenant('Acme', 'owner@example.com');
    const list = await runSvc(['tenant', 'list', '--json'], { env: home.env() });
    expectOk(list);
    expect(JSON.parse(list.stdout)).toEqual({
      pagination: { total_items: 1, page_number: 1, page_size: 1, total_pages: 1 },
      data: [acme.tenant],
    });
    const table = await runSvc(['tenant', 'list'], { env: home.env() });
    expect(table.stdout).toBe(`${acme.tenant.id}\tAcme\towner@example.com\t${acme.tenant.created_at}\n`);

    const show = await runSvc(['tenant', 'show', '--json'], { env: home.env() });
    expectOk(show);
    expect(JSON.parse(show.stdout)).toEqual(acme.tenant);
    const record = await runSvc(['tenant', 'show'], { env: home.env() });
    expect(record.stdout).toContain(`ID\t${acme.tenant.id}\n`);
    expect(record.stdout).toContain(`Owner\towner@example.com (${acme.owner?.id})\n`);
  });

  it('with several tenants, --tenant is required; an unknown one is an error', async () => {
    const acme = await createTenant('Acme', 'a@example.com');
    const beta = await createTenant('Beta', 'b@example.com');
    const ambiguous = await runSvc(['tenant', 'show'], { env: home.env() });
    expectOneLineError(
      ambiguous,
      2,
      /2 tenants; pass --tenant <id-or-name> or choose one with 'npx svc tenant use' \(or set SVC_TENANT\)/,
    );
    expect(ambiguous.stderr).toContain(`${acme.tenant.id} (Acme)`);
    expect(ambiguous.stderr).toContain(`${beta.tenant.id} (Beta)`);

    const chosen = await runSvc(['tenant', 'show', '--tenant', beta.tenant.id, '--json'], {
      env: home.env(),
    });
    expectOk(chosen);
    expect(JSON.parse(chosen.stdout)).toMatchObject({ id: beta.tenant.id, name: 'Beta' });
    expectOneLineError(
      await runSvc(['tenant', 'show', '--tenant', 'nope'], { env: home.env() }),
      1,
      /no tenant nope/,
    );
    // A near miss is named.
    expectOneLineError(
      await runSvc(['tenant', 'show', '--tenant', 'Bta'], { env: home.env() }),
      1,
      /no tenant Bta in this vault \(did you mean Beta\?\)/,
    );
  });

  it('--tenant takes a name (any letter case) as well as an id; SVC_TENANT is the default', async () => {
    await createTenant('Acme', 'a@example.com');
    const beta = await createTenant('Beta', 'b@example.com');
    for (const name of ['Beta', 'beta']) {
      const byName = await runSvc(['tenant', 'show', '--tenant', name, '--json'], { env: home.env() });
      expectOk(byName);
      expect(JSON.parse(byName.stdout)).toMatchObject({ id: beta.tenant.id });
    }
    const fromEnv = await runSvc(['tenant', 'show', '--json'], { env: home.env({ SVC_TENANT: 'Beta' }) });
    expectOk(fromEnv);
    expect(JSON.parse(fromEnv.stdout)).toMatchObject({ id: beta.tenant.id });
    // The flag wins over the environment.
    const flagWins = await runSvc(['tenant', 'show', '--tenant', 'Acme', '--json'], {
      env: home.env({ SVC_TENANT: 'Beta' }),
    });
    expect(JSON.parse(flagWins.stdout)).toMatchObject({ name: 'Acme' });
    // Two tenants of one name: the id is needed.
    const twin = await createTenant('beta', 'c@example.com');
    const ambiguous = await runSvc(['tenant', 'show', '--tenant', 'BETA'], { env: home.env() });
    expectOneLineError(ambiguous, 2, /2 tenants are named BETA; pass --tenant <id>/);
    expect(ambiguous.stderr).toContain(twin.tenant.id);
  });

  it('the config file\'s "tenant" is the default after --tenant and SVC_TENANT', async () => {
    const acme = await createTenant('Acme', 'a@example.com');
    const beta = await createTenant('Beta', 'b@example.com');
    await writeFile(path.join(home.dir, 'config.json'), JSON.stringify({ tenant: 'beta' }));
    const fromFile = await runSvc(['tenant', 'show', '--json'], { env: home.env() });
    expectOk(fromFile);
    expect(JSON.parse(fromFile.stdout)).toMatchObject({ id: beta.tenant.id });
    const envWins = await runSvc(['tenant', 'show', '--json'], {
      env: home.env({ SVC_TENANT: acme.tenant.id }),
    });
    expect(JSON.parse(envWins.stdout)).toMatchObject({ id: acme.tenant.id });
    const flagWins = await runSvc(['tenant', 'show', '--tenant', 'Acme', '--json'], { env: home.env() });
    expect(JSON.parse(flagWins.stdout)).toMatchObject({ id: acme.tenant.id });
    const config = await runSvc(['config', '--json'], { env: home.env() });
    expect(config.stdout).toContain('"tenant"');
  });

  it('svc tenant use keeps the choice in the config file; status shows it; commands then need no --tenant', async () => {
    const acme = await createTenant('Acme', 'a@example.com');
    const second = await createTenant('Second', 'b@example.com');
    expectOneLineError(await runSvc(['app', 'list'], { env: home.env() }), 2, /2 tenants/);
    const used = await runSvc(['tenant', 'use', 'second'], { env: home.env() });
    expectOk(used);
    const file = path.join(home.dir, 'config.json');
    expect(used.stdout).toBe(`Commands now act in tenant Second (${second.tenant.id}); kept in ${file}.\n`);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ tenant: second.tenant.id });
    const apps = await runSvc(['app', 'list', '--json'], { env: home.env() });
    expectOk(apps);
    expect(listData<{ tenant_id: string }>(apps.stdout).map((a) => a.tenant_id)).toEqual([second.tenant.id]);
    const status = await runSvc(['status'], { env: home.env() });
    expect(status.stdout).toContain(`Tenant\t${second.tenant.id} (config file ${file})\n`);
    // Other settings of the file stay; --config names another file.
    await writeFile(file, JSON.stringify({ logLevel: 'warn', tenant: second.tenant.id }));
    expectOk(await runSvc(['tenant', 'use', acme.tenant.id, '--json'], { env: home.env() }));
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ logLevel: 'warn', tenant: acme.tenant.id });
    const other = path.join(home.dir, 'other.json');
    await writeFile(other, '{}');
    expectOk(await runSvc(['tenant', 'use', 'Second', '--config', other], { env: home.env() }));
    expect(JSON.parse(await readFile(other, 'utf8'))).toEqual({ tenant: second.tenant.id });
    // SVC_TENANT still wins, and the command says so.
    const shadowed = await runSvc(['tenant', 'use', 'Acme'], { env: home.env({ SVC_TENANT: 'Second' }) });
    expect(shadowed.stderr).toContain('SVC_TENANT is set (Second) and wins over the config file');
    // Unknown names change nothing; --clear forgets the choice.
    expectOneLineError(await runSvc(['tenant', 'use', 'Nope'], { env: home.env() }), 1, /no tenant Nope/);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ logLevel: 'warn', tenant: acme.tenant.id });
    expectOk(await runSvc(['tenant', 'use', '--clear'], { env: home.env() }));
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ logLevel: 'warn' });
    expectOneLineError(await runSvc(['tenant', 'use'], { env: home.env() }), 2, /name a tenant/);
  });

  it('a vault without tenants says how to make one', async () => {
    expectOneLineError(
      await runSvc(['tenant', 'show'], { env: home.env() }),
      2,
      /no tenants yet.*svc tenant create/,
    );
  });
});
