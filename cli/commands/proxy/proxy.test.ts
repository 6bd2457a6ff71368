import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Proxy } from '../../../core/proxies/index.ts';
import { expectOk, expectOneLineError } from '../../test-support/expect.ts';
import { runSvc, type TempHome } from '../../test-support/harness.ts';
import { makeTenantHome } from '../../test-support/tenant-home.ts';

let home: TempHome;

beforeEach(async () => {
  ({ home } = await makeTenantHome({ ownerEmail: 'o@example.com' }));
});
afterEach(() => home.cleanup());

const svc = (...args: string[]) => runSvc(args, { env: home.env() });

describe('svc proxy', () => {
  it('create, list, show, update (key kept), delete', async () => {
    const transform = path.join(home.dir, 'request.js');
    await writeFile(
      transform,
      'module.exports = async (req) => ({ body: req.args.body, headers: req.args.headers });\n',
    );
    const created = await svc(
      'proxy',
      'create',
      '--name',
      'Payments',
      '--destination-url',
      'https://api.payments.example/v1',
      '--request-transform-file',
      transform,
      '--set',
      'ACCOUNT=acct_1',
      '--require-auth',
      'false',
      '--json',
    );
    expectOk(created);
    const proxy = JSON.parse(created.stdout) as Proxy;
    expect(proxy).toMatchObject({
      name: 'Payments',
      destination_url: 'https://api.payments.example/v1',
      require_auth: false,
      configuration: { ACCOUNT: 'acct_1' },
    });
    expect(proxy.request_transform?.code).toContain('module.exports');

    const list = await svc('proxy', 'list');
    expectOk(list);
    expect(list.stdout).toContain(proxy.id);
    expect(list.stdout).toContain('Payments');

    const shown = await svc('proxy', 'show', proxy.id, '--json');
    expectOk(shown);
    expect((JSON.parse(shown.stdout) as Proxy).key).toBe(proxy.key);

    const updated = await svc('proxy', 'update', proxy.id, '--name', 'Renamed', '--json');
    expectOk(updated);
    const after = JSON.parse(updated.stdout) as Proxy;
    expect(after).toMatchObject({ id: proxy.id, key: proxy.key, name: 'Renamed', require_auth: false });
    expect(after.configuration).toEqual({ ACCOUNT: 'acct_1' });
    expect(after.request_transform?.code).toBe(proxy.request_transform?.code);

    expectOk(await svc('proxy', 'delete', proxy.id, '--yes'));
    expectOneLineError(await svc('proxy', 'show', proxy.id), 1);
  });

  it('refuses a configuration named __proto__ as a server would, naming it', async () => {
    const result = await svc(
      'proxy',
      'create',
      '--name',
      'P',
      '--destination-url',
      'https://api.payments.example/v1',
      '--set',
      '__proto__=x',
    );
    expectOneLineError(result, 2, /configuration: name "__proto__" is not accepted/);
    const list = await svc('proxy', 'list', '--json');
    expect((JSON.parse(list.stdout) as { data: unknown[] }).data).toEqual([]);
  });

  it('refuses a plain-HTTP destination and a transform that does not compile, with one line each', async () => {
    expectOneLineError(
      await svc('proxy', 'create', '--name', 'x', '--destination-url', 'http://api.example/'),
      2,
    );
    const bad = path.join(home.dir, 'bad.js');
    await writeFile(bad, 'const a = ;\n');
    expectOneLineError(
      await svc(
        'proxy',
        'create',
        '--name',
        'x',
        '--destination-url',
        'https://api.example/',
        '--response-transform-file',
        bad,
      ),
      1,
    );
  });
});
