import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Application, ApplicationWithKey, Tenant } from '../../../core/services-contract.ts';
import {
  expectNoSecret,
  expectOk,
  expectOneLineError,
  expectShownOnce,
  withHomeVault,
  listData,
} from '../../test-support/expect.ts';
import { runSvc, type TempHome } from '../../test-support/harness.ts';
import { appCreate, INIT, makeInitHome, preparedHome, tenantCreate } from '../../test-support/tenant-home.ts';

/** `svc app …` through the services, against a real vault with one tenant (and later a second). */

let home: TempHome;
let tenant: Tenant;
let managementKey: string;

async function createTenant(name: string, email: string): Promise<{ tenant: Tenant; key: string }> {
  const result = await runSvc(['tenant', 'create', '--name', name, '--owner-email', email, '--json'], {
    env: home.env(),
  });
  expectOk(result);
  return createdWithKey(result.stdout);
}

function createdWithKey(stdout: string): { tenant: Tenant; key: string } {
  const created = JSON.parse(stdout) as { tenant: Tenant; application: ApplicationWithKey };
  return { tenant: created.tenant, key: created.application.key };
}

beforeEach(async () => {
  const prepared = await preparedHome([INIT, tenantCreate('Acme', 'owner@example.com')]);
  home = prepared.home;
  ({ tenant, key: managementKey } = createdWithKey(prepared.outputs[1] ?? ''));
});
afterEach(() => home.cleanup());

const svc = (...args: string[]) => runSvc(args, { env: home.env() });

describe('svc app create', () => {
  it('creates an application and shows its key once; the key authenticates with its grants', async () => {
    const result = await svc(
      'app',
      'create',
      '--name',
      'Backend',
      '--type',
      'private',
      '--permission',
      'token:create,token:read',
      '--permission',
      'token:search',
      '--json',
    );
    expectOk(result);
    const created = JSON.parse(result.stdout) as ApplicationWithKey;
    expect(created).toMatchObject({
      tenant_id: tenant.id,
      name: 'Backend',
      type: 'private',
      permissions: ['token:create', 'token:read', 'token:search'],
      rules: [],
    });
    expectShownOnce(result, created.key);
    await withHomeVault(home, async (_vault, services) => {
      expect(await services.auth.authenticateApiKey(created.key)).toMatchObject({
        kind: 'application',
        tenantId: tenant.id,
        applicationId: created.id,
        applicationType: 'private',
      });
    });

    const text = await svc(
      'app',
      'create',
      '--name',
      'Collector',
      '--type',
      'public',
      '--permission',
      'token:create',
    );
    expectOk(text);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^Application: \S+ \(Collector, public\)$/);
    expect(lines[1]).toBe(`Tenant: ${tenant.id}`);
    const key = /^API key \(shown once\): (key_\S+)$/.exec(lines[2] ?? '')?.[1] ?? '';
    expect(key).not.toBe('');
    expectShownOnce(text, key);
  });

  it('--all-permissions grants everything the type may hold', async () => {
    const result = await svc(
      'app',
      'create',
      '--name',
      'Admin',
      '--type',
      'management',
      '--all-permissions',
      '--json',
    );
    expectOk(result);
    const created = JSON.parse(result.stdout) as Application;
    expect(created.permissions).toContain('application:create');
    expect(created.permissions).toContain('log:read');
    expect(created.permissions.some((p) => p.startsWith('token:'))).toBe(false);
  });

  it('takes access rules from --rule and from --rules-file', async () => {
    const rule = {
      description: 'PCI',
      priority: 1,
      container: '/pci/',
      permissions: ['token:read'],
      transform: 'reveal',
    };
    const inline = await svc(
      'app',
      'create',
      '--name',
      'Inline',
      '--type',
      'private',
      '--rule',
      JSON.stringify(rule),
      '--rule',
      JSON.stringify({ ...rule, priority: 2, container: '/', transform: 'mask' }),
      '--json',
    );
    expectOk(inline);
    expect((JSON.parse(inline.stdout) as Application).rules).toEqual([
      rule,
      { ...rule, priority: 2, container: '/', transform: 'mask' },
    ]);

    const file = path.join(home.dir, 'rules.json');
    await writeFile(file, JSON.stringify({ rules: [rule] }));
    const fromFile = await runSvc(
      ['app', 'create', '--name', 'File', '--type', 'private', '--rules-file', 'rules.json', '--json'],
      { env: home.env(), cwd: home.dir },
    );
    expectOk(fromFile);
    expect((JSON.parse(fromFile.stdout) as Application).rules).toEqual([rule]);
  });

  it('validation errors name the fields, exit 2, and create nothing', async () => {
    const wrongType = await svc(
      'app',
      'create',
      '--name',
      'X',
      '--type',
      'public',
      '--permission',
      'token:read',
    );
    expectOneLineError(wrongType, 2, /permissions\[0\]: 'token:read' is not allowed for public applications/);
    const none = await svc('app', 'create', '--name', 'X', '--type', 'private');
    expectOneLineError(none, 2, /permissions: at least one permission or rule is required/);
    const rules = await svc(
      'app',
      'create',
      '--name',
      'X',
      '--type',
      'management',
      '--permission',
      'log:read',
      '--rule',
      '{"priority":1,"container":"/","permissions":["token:read"],"transform":"mask","description":""}',
    );
    expectOneLineError(rules, 2, /rules/);
    const shape = await svc('app', 'create', '--name', 'X', '--type', 'private', '--rule', '[1]');
    expectOneLineError(shape, 2, /rules\[0\]: must be a JSON object/);
    const apps = await svc('app', 'list', '--json');
    expect(listData<Application>(apps.stdout).map((a) => a.type)).toEqual(['management']);
  });

  it('bad flags and files are usage errors', async () => {
    expectOneLineError(await svc('app', 'create', '--name', 'X', '--type', 'robot'), 2, /Allowed choices/);
    expectOneLineError(
      await svc('app', 'create', '--name', 'X', '--type', 'private', '--rule', '{'),
      2,
      /Not valid JSON/,
    );
    const createWithRulesFile = (file: string) =>
      svc('app', 'create', '--name', 'X', '--type', 'private', '--rules-file', path.join(home.dir, file));
    expectOneLineError(await createWithRulesFile('none.json'), 2, /cannot read the rules file/);
    await writeFile(path.join(home.dir, 'bad.json'), '{"rules": 1}');
    expectOneLineError(await createWithRulesFile('bad.json'), 2, /must hold a JSON array/);
    expectOneLineError(await svc('app', 'create', '--type', 'private'), 2, /missing --name/);
  });

  it('on a terminal asks for the name and type', async () => {
    const result = await runSvc(['app', 'create', '--permission', 'token:create', '--json'], {
      env: home.env(),
      isTTY: true,
      answers: ['Prompted', 'public'],
    });
    expectOk(result);
    expect(result.asked).toEqual(['Application name:', 'Type:']);
    expect(JSON.parse(result.stdout)).toMatchObject({ name: 'Prompted', type: 'public' });
  });

  it('on a terminal without permission flags offers a checklist of what the chosen type may hold', async () => {
    const result = await runSvc(['app', 'create', '--json'], {
      env: home.env(),
      isTTY: true,
      answers: ['Checked', 'management', 'log:read,application:read'],
    });
    expectOk(result);
    expect(result.asked).toEqual([
      'Application name:',
      'Type:',
      'Permissions (space to select, enter to accept):',
    ]);
    expect(JSON.parse(result.stdout)).toMatchObject({
      type: 'management',
      permissions: ['log:read', 'application:read'],
    });
  });
});

describe('svc app list, show, update, regenerate, delete', () => {
  let app: ApplicationWithKey;
  beforeEach(async () => {
    const result = await svc(...appCreate('Backend', 'private', 'token:read').args);
    expectOk(result);
    app = JSON.parse(result.stdout) as ApplicationWithKey;
  });

  it('lists (JSON, filtered by type, tab-separated in a pipe) and shows without keys', async () => {
    const list = await svc('app', 'list', '--json');
    expectOk(list);
    const apps = listData<Application>(list.stdout);
    expect(apps).toHaveLength(2);
    expect(apps.map((a) => a.name)).toContain('Backend');
    expect(list.stdout).not.toContain('"key"');
    expectNoSecret(list, app.key, managementKey);

    const privateOnly = await svc('app', 'list', '--type', 'private', '--json');
    expect(listData<Application>(privateOnly.stdout).map((a) => a.id)).toEqual([app.id]);
    const table = await svc('app', 'list', '--type', 'private');
    expect(table.stdout).toBe(`${app.id}\tBackend\tprivate\t1\t0\t${app.created_at}\n`);

    const show = await svc('app', 'show', app.id, '--json');
    expectOk(show);
    const { key: _key, ...withoutKey } = app;
    expect(JSON.parse(show.stdout)).toEqual(withoutKey);
    const record = await svc('app', 'show', app.id);
    expect(record.stdout).toContain(`ID\t${app.id}\n`);
    expect(record.stdout).toContain('Permissions\ttoken:read\n');
    expectNoSecret(record, app.key);
  });

  it('updates only what is given; the type stays', async () => {
    const renamed = await svc('app', 'update', app.id, '--name', 'Renamed', '--json');
    expectOk(renamed);
    expect(JSON.parse(renamed.stdout)).toMatchObject({
      id: app.id,
      name: 'Renamed',
      type: 'private',
      permissions: ['token:read'],
    });
    const regranted = await svc(
      'app',
      'update',
      app.id,
      '--permission',
      'token:search,token:delete',
      '--json',
    );
    expectOk(regranted);
    expect(JSON.parse(regranted.stdout)).toMatchObject({
      name: 'Renamed',
      permissions: ['token:search', 'token:delete'],
    });
    const text = await svc('app', 'update', app.id, '--name', 'Again');
    expectOk(text);
    expect(text.stdout).toContain('Name\tAgain\n');

    expectOneLineError(await svc('app', 'update', app.id), 2, /nothing to update/);
    expectOneLineError(
      await svc('app', 'update', app.id, '--permission', 'log:read'),
      2,
      /permissions\[0\]: 'log:read' is not allowed for private applications/,
    );
  });

  it('regenerates the key after confirmation: shown once, the old one stops working', async () => {
    // Off a terminal without --yes: refused, and the old key still works.
    expectOneLineError(
      await svc('app', 'regenerate', app.id),
      2,
      /^svc: replacing an application's API key needs confirmation; pass --yes\n$/,
    );
    const declined = await runSvc(['app', 'regenerate', app.id], {
      env: home.env(),
      isTTY: true,
      answers: [false],
    });
    expectOneLineError(declined, 2, /cancelled; the application keeps its key/);
    expect(declined.asked).toEqual([
      `Replace the API key of application Backend (${app.id})? The current key stops working at once.`,
    ]);
    await withHomeVault(home, async (_vault, services) => {
      expect(await services.auth.authenticateApiKey(app.key)).toMatchObject({ applicationId: app.id });
    });

    const result = await svc('app', 'regenerate', app.id, '--yes', '--json');
    expectOk(result);
    const regenerated = JSON.parse(result.stdout) as ApplicationWithKey;
    expect(regenerated).toMatchObject({ id: app.id, key: expect.stringMatching(/^key_/) });
    expect(regenerated.key).not.toBe(app.key);
    expectShownOnce(result, regenerated.key);

    const text = await runSvc(['app', 'regenerate', app.id], {
      env: home.env(),
      isTTY: true,
      answers: [true],
    });
    expectOk(text);
    const latest = /^API key for \S+ \(shown once\): (key_\S+)$/.exec(text.stdout.trimEnd())?.[1] ?? '';
    expectShownOnce(text, latest);

    await withHomeVault(home, async (_vault, services) => {
      expect(await services.auth.authenticateApiKey(app.key)).toBeNull();
      expect(await services.auth.authenticateApiKey(regenerated.key)).toBeNull();
      expect(await services.auth.authenticateApiKey(latest)).toMatchObject({ applicationId: app.id });
    });
    expectOneLineError(
      await svc('app', 'regenerate', 'no-such-app', '--yes'),
      1,
      /no application no-such-app/,
    );
  });

  it('deletes after confirmation on a terminal, or with --yes', async () => {
    expectOneLineError(await svc('app', 'delete', app.id), 2, /pass --yes/);
    const declined = await runSvc(['app', 'delete', app.id], {
      env: home.env(),
      isTTY: true,
      answers: [false],
    });
    expectOneLineError(declined, 2, /cancelled/);
    expect(declined.asked).toEqual([`Delete application Backend (${app.id})? Its API key stops working.`]);
    expectOk(await svc('app', 'show', app.id));

    const confirmed = await runSvc(['app', 'delete', app.id], {
      env: home.env(),
      isTTY: true,
      answers: [true],
    });
    expectOk(confirmed);
    expect(confirmed.stdout).toBe(`Deleted application ${app.id} (Backend)\n`);
    expectOneLineError(await svc('app', 'show', app.id), 1, /no application/);
    await withHomeVault(home, async (_vault, services) => {
      expect(await services.auth.authenticateApiKey(app.key)).toBeNull();
    });

    const other = JSON.parse(
      (await svc(...appCreate('Other', 'public', 'token:create').args)).stdout,
    ) as Application;
    const scripted = await svc('app', 'delete', other.id, '--yes', '--json');
    expectOk(scripted);
    expect(JSON.parse(scripted.stdout)).toEqual({ id: other.id, tenant_id: tenant.id, deleted: true });
  });

  it('with two tenants: list needs --tenant, ids find their own tenant', async () => {
    const beta = await createTenant('Beta', 'beta@example.com');
    const ambiguous = await svc('app', 'list');
    expectOneLineError(ambiguous, 2, /this vault has 2 tenants; pass --tenant <id-or-name>/);
    expect(ambiguous.stderr).toContain(`${tenant.id} (Acme)`);
    expect(ambiguous.stderr).toContain(`${beta.tenant.id} (Beta)`);
    expectOneLineError(
      await svc('app', 'create', '--name', 'X', '--type', 'public', '--permission', 'token:create'),
      2,
      /pass --tenant/,
    );

    const acmeApps = listData<Application>(
      (await svc('app', 'list', '--tenant', tenant.id, '--json')).stdout,
    );
    expect(acmeApps.map((a) => a.id)).toContain(app.id);
    const betaApps = listData<Application>(
      (await svc('app', 'list', '--tenant', beta.tenant.id, '--json')).stdout,
    );
    expect(betaApps.map((a) => a.id)).not.toContain(app.id);

    // The hint `svc start` prints works whatever the number of tenants.
    expectOk(await svc('app', 'regenerate', app.id, '--yes'));
    expect(JSON.parse((await svc('app', 'show', app.id, '--json')).stdout)).toMatchObject({
      tenant_id: tenant.id,
    });
    // --tenant narrows the search: the app is not in Beta.
    expectOneLineError(await svc('app', 'show', app.id, '--tenant', beta.tenant.id), 1, /no application/);
  });
});

describe('without tenants', () => {
  it('app list says how to create one', async () => {
    const other = await makeInitHome();
    try {
      expectOneLineError(await runSvc(['app', 'list'], { env: other.env() }), 2, /no tenants yet/);
    } finally {
      await other.cleanup();
    }
  });
});
