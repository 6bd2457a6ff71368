import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TokenView } from '../../../core/tokens/contract.ts';
import { expectNoSecret, expectOk, expectOneLineError } from '../../test-support/expect.ts';
import { runSvc, type TempHome } from '../../test-support/harness.ts';
import { makeTenantHome } from '../../test-support/tenant-home.ts';

/** `svc token associate | dissociate | children` against a real vault, as the tenant's operator. */

let home: TempHome;
const CARD_NUMBER = '4242424242424242';

beforeEach(async () => {
  ({ home } = await makeTenantHome({ ownerEmail: 'o@example.com' }));
});
afterEach(() => home.cleanup());

const svc = (...args: string[]) => runSvc(args, { env: home.env(), cwd: home.dir });

async function create(...args: string[]): Promise<TokenView> {
  const result = await svc('token', 'create', ...args, '--json');
  expectOk(result);
  return JSON.parse(result.stdout) as TokenView;
}

describe('svc token associate, children, dissociate', () => {
  it('links two tokens, lists the children (masked unless --reveal) and unlinks them', async () => {
    const parent = await create('--type', 'token', '--data', '"parent value"');
    const child = await create('--type', 'card_number', '--data', JSON.stringify(CARD_NUMBER));

    const linked = await svc('token', 'associate', parent.id, child.id);
    expectOk(linked);
    expect(linked.stdout).toContain(`Token ${child.id} is now a child of ${parent.id}`);

    const table = await svc('token', 'children', parent.id);
    expectOk(table);
    expect(table.stdout).toContain(child.id);
    expectNoSecret(table, CARD_NUMBER);

    const json = await svc('token', 'children', parent.id, '--json');
    expectOk(json);
    const page = JSON.parse(json.stdout) as { data: TokenView[]; pagination: { total_items: number } };
    expect(page.pagination.total_items).toBe(1);
    expect(page.data[0]).toMatchObject({ id: child.id, data: 'XXXXXXXXXXXX4242' });
    const revealed = JSON.parse((await svc('token', 'children', parent.id, '--reveal', '--json')).stdout) as {
      data: TokenView[];
    };
    expect(revealed.data[0]?.data).toBe(CARD_NUMBER);
    expect(
      (
        JSON.parse((await svc('token', 'children', parent.id, '--type', 'token', '--json')).stdout) as {
          data: unknown[];
        }
      ).data,
    ).toEqual([]);

    expectOneLineError(await svc('token', 'associate', parent.id, child.id), 1, /already associated/);

    const unlinked = await svc('token', 'dissociate', parent.id, child.id, '--json');
    expectOk(unlinked);
    expect(JSON.parse(unlinked.stdout)).toMatchObject({
      parent_id: parent.id,
      child_id: child.id,
      associated: false,
    });
    const empty = await svc('token', 'children', parent.id);
    expectOk(empty);
    expect(empty.stdout).toBe('');
    expect(empty.stderr).toContain('No child tokens');
  });

  it('fails with one line for an unknown token and for a token as its own child', async () => {
    const parent = await create('--type', 'token', '--data', '"parent value"');
    expectOneLineError(await svc('token', 'associate', parent.id, 'missing'), 1);
    expectOneLineError(await svc('token', 'children', 'missing'), 1);
    expectOneLineError(await svc('token', 'associate', parent.id, parent.id), 2);
  });
});
