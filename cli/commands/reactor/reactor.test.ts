import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Reactor, ReactorFormula } from '../../../core/reactors/contract.ts';
import type { Tenant } from '../../../core/services-contract.ts';
import { expectOk, expectOneLineError, withHomeVault, listData } from '../../test-support/expect.ts';
import { runSvc, type TempHome } from '../../test-support/harness.ts';
import { makeTenantHome } from '../../test-support/tenant-home.ts';
import { operatorIn } from '../../tenancy/tenant-scope.ts';

/** `svc formula`, `svc reactor` and `svc detokenize` against a real vault. */

let home: TempHome;
let tenant: Tenant;
let tokenId: string;

const run = (args: string[]) => runSvc(args, { env: home.env(), cwd: home.dir });

beforeAll(async () => {
  ({ home, tenant } = await makeTenantHome({ ownerEmail: 'o@example.com' }));
  tokenId = await withHomeVault(home, async (_vault, services) => {
    const { token } = await services.tokens.create(operatorIn(tenant.id), { data: 'Ada Lovelace' });
    return token.id;
  });
  await writeFile(
    path.join(home.dir, 'greet.js'),
    "module.exports = async function (req) {\n  return { raw: { greeting: 'Hello ' + req.args.name, region: req.configuration.region } };\n};\n",
  );
  await writeFile(
    path.join(home.dir, 'args.json'),
    JSON.stringify({ name: `{{ ${tokenId} | split: ' ' | first }}` }),
  );
}, 60_000);
afterAll(() => home.cleanup());

describe('svc formula and svc reactor', () => {
  it('creates a formula from a file, a reactor, and reacts with token expressions', async () => {
    const formulaRun = await run([
      'formula',
      'create',
      '--name',
      'Greeter',
      '--code-file',
      'greet.js',
      '--configuration',
      '[{"name":"region","type":"string"}]',
      '--request-parameters',
      '[{"name":"name","type":"string"}]',
      '--json',
    ]);
    expectOk(formulaRun);
    const formula = JSON.parse(formulaRun.stdout) as ReactorFormula;
    expect(formula).toMatchObject({ name: 'Greeter', type: 'private' });

    const listed = await run(['formula', 'list', '--json']);
    expect(listData<ReactorFormula>(listed.stdout).map((f) => f.name)).toContain('Greeter');

    const reactorRun = await run([
      'reactor',
      'create',
      '--name',
      'Greet',
      '--formula',
      formula.id,
      '--configuration',
      '{"region":"eu"}',
      '--json',
    ]);
    expectOk(reactorRun);
    const reactor = JSON.parse(reactorRun.stdout) as Reactor;

    const reacted = await run(['reactor', 'react', reactor.id, '--args-file', 'args.json']);
    expectOk(reacted);
    expect(JSON.parse(reacted.stdout)).toEqual({ raw: { greeting: 'Hello Ada', region: 'eu' } });

    const updated = await run(['reactor', 'update', reactor.id, '--name', 'Greet 2', '--json']);
    expect(JSON.parse(updated.stdout)).toMatchObject({ name: 'Greet 2', configuration: { region: 'eu' } });
    const shown = await run(['reactor', 'show', reactor.id]);
    expect(shown.stdout).toContain('Greet 2');
    expect((await run(['reactor', 'list'])).stdout).toContain(reactor.id);

    const formulaUpdate = await run([
      'formula',
      'update',
      formula.id,
      '--description',
      'says hello',
      '--json',
    ]);
    expect(JSON.parse(formulaUpdate.stdout)).toMatchObject({ description: 'says hello', name: 'Greeter' });

    expectOneLineError(await run(['formula', 'delete', formula.id, '--yes']), 1, /Reactors use this formula/);
    expectOk(await run(['reactor', 'delete', reactor.id, '--yes']));
    expectOk(await run(['formula', 'delete', formula.id, '--yes']));
  }, 60_000);

  it('saves bad code with a warning naming its position, then reports it at invocation', async () => {
    await writeFile(
      path.join(home.dir, 'bad.js'),
      'module.exports = async function (req) {\n  return {;\n};\n',
    );
    const saved = await run(['formula', 'create', '--name', 'Bad', '--code-file', 'bad.js', '--json']);
    expectOk(saved);
    expect(saved.stderr).toMatch(
      /^warning: Invalid Reactor Formula: line 2, column 11: SyntaxError: [^\n]+\n$/,
    );
    const formula = JSON.parse(saved.stdout) as ReactorFormula;
    const reactor = await run(['reactor', 'create', '--name', 'Bad', '--formula', formula.id, '--json']);
    expectOk(reactor);
    expectOneLineError(
      await run(['reactor', 'react', (JSON.parse(reactor.stdout) as Reactor).id]),
      1,
      /line 2, column 11/,
    );
    expectOneLineError(await run(['formula', 'create', '--name', 'No code']), 2, /--code-file/);
    expectOneLineError(
      await run(['reactor', 'react', '00000000-0000-4000-8000-000000000000']),
      1,
      /No such reactor/,
    );
  }, 60_000);

  it('detokenizes only with --reveal', async () => {
    expectOneLineError(await run(['detokenize', `{"a":"{{${tokenId}}}"}`]), 2, /--reveal/);
    const shown = await run(['detokenize', '--reveal', `{"a":"{{${tokenId}}}"}`]);
    expectOk(shown);
    expect(JSON.parse(shown.stdout)).toEqual({ a: 'Ada Lovelace' });
  }, 60_000);
});
