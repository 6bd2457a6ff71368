import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Tenant } from '../../../core/services-contract.ts';
import type { TokenView } from '../../../core/tokens/contract.ts';
import { expectNoSecret, expectOk, expectOneLineError, withHomeVault } from '../../test-support/expect.ts';
import { runSvc, type TempHome, type TestIoOptions } from '../../test-support/harness.ts';
import { makeTenantHome } from '../../test-support/tenant-home.ts';
import { operatorIn } from '../../tenancy/tenant-scope.ts';

/** `svc tokenize` against a real vault: JSON from an argument, a file, stdin, or prompts. */

let home: TempHome;
let tenant: Tenant;

beforeEach(async () => {
  ({ home, tenant } = await makeTenantHome({ ownerEmail: 'o@example.com' }));
});
afterEach(() => home.cleanup());

const run = (args: string[], options: TestIoOptions = {}) =>
  runSvc(args, { env: home.env(), cwd: home.dir, ...options });

const SSN = '123-45-6789';
const CARD_NUMBER = '4242424242424242';
const BODY = {
  customer: { name: 'secret-name-value', age: 42, vip: true, none: null },
  ssn: { type: 'social_security_number', data: SSN },
  cards: [{ type: 'card', data: { number: CARD_NUMBER, expiration_month: 1, expiration_year: 2031 } }],
};

interface Response {
  customer: { name: string; age: string; vip: string; none: null };
  ssn: TokenView;
  cards: TokenView[];
}

/** Reads tokens back through the services, as another program would. */
async function revealAll(ids: readonly string[]): Promise<unknown[]> {
  return withHomeVault(home, async (_vault, services) =>
    Promise.all(ids.map(async (id) => (await services.tokens.get(operatorIn(tenant.id), id)).data)),
  );
}

async function expectTokenized(stdout: string): Promise<void> {
  const response = JSON.parse(stdout) as Response;
  // Primitives become ids; null stays null; definitions become masked token views.
  expect(typeof response.customer.name).toBe('string');
  expect(response.customer.none).toBeNull();
  expect(response.ssn).toMatchObject({ type: 'social_security_number', data: 'XXX-XX-6789' });
  expect(response.cards[0]).toMatchObject({
    type: 'card',
    data: { number: 'XXXXXXXXXXXX4242', expiration_month: 1, expiration_year: 2031 },
  });
  const { name, age, vip } = response.customer;
  expect(await revealAll([name, age, vip, response.ssn.id, response.cards[0]?.id ?? ''])).toEqual([
    'secret-name-value',
    42,
    true,
    SSN,
    BODY.cards[0]?.data,
  ]);
}

describe('svc tokenize', () => {
  it('from the argument: the response has the request shape, masked, and every id resolves', async () => {
    const result = await run(['tokenize', JSON.stringify(BODY)]);
    expectOk(result);
    expectNoSecret(result, SSN, CARD_NUMBER, 'secret-name-value');
    await expectTokenized(result.stdout);
  });

  it('from --file and from standard input alike (--json is accepted)', async () => {
    await writeFile(path.join(home.dir, 'body.json'), JSON.stringify(BODY));
    const fromFile = await run(['tokenize', '--file', 'body.json', '--json']);
    expectOk(fromFile);
    expectNoSecret(fromFile, SSN, CARD_NUMBER);
    await expectTokenized(fromFile.stdout);

    const fromStdin = await run(['tokenize'], { stdin: JSON.stringify(BODY) });
    expectOk(fromStdin);
    expectNoSecret(fromStdin, SSN, CARD_NUMBER);
    await expectTokenized(fromStdin.stdout);
  });

  it('a single primitive becomes one id', async () => {
    const result = await run(['tokenize', '"just-a-secret"']);
    expectOk(result);
    const id = JSON.parse(result.stdout) as string;
    expect(await revealAll([id])).toEqual(['just-a-secret']);
  });

  it('on a terminal with nothing given, asks for a type and a hidden value', async () => {
    const result = await run(['tokenize'], { isTTY: true, answers: ['social_security_number', SSN] });
    expectOk(result);
    expect(result.asked).toEqual(['Token type:', 'Value (social_security_number, hidden):']);
    expectNoSecret(result, SSN);
    const view = JSON.parse(result.stdout) as TokenView;
    expect(view).toMatchObject({ type: 'social_security_number', data: 'XXX-XX-6789' });
    expect(await revealAll([view.id])).toEqual([SSN]);

    const plain = await run(['tokenize'], { isTTY: true, answers: ['token', 'hidden-value'] });
    expectOk(plain);
    expect(plain.asked).toEqual(['Token type:', 'Value to tokenize (hidden):']);
    const token = JSON.parse(plain.stdout) as TokenView;
    // A `token` has no mask: no data in the response at all.
    expect(token).not.toHaveProperty('data');
    expect(await revealAll([token.id])).toEqual(['hidden-value']);

    const bank = await run(['tokenize'], { isTTY: true, answers: ['bank', '021000021', '12345678901'] });
    expectOk(bank);
    expect(JSON.parse(bank.stdout)).toMatchObject({
      type: 'bank',
      data: { routing_number: '021000021', account_number: 'XXXXXXX8901' },
    });
  });

  it('all or nothing: one invalid definition creates no token and the error never shows data', async () => {
    const body = [{ type: 'card', data: { number: '4242424242424241' } }, 'other-secret-value'];
    const result = await run(['tokenize', JSON.stringify(body)]);
    expectOneLineError(result, 2, /\[0\]\.data\.number/);
    expectNoSecret(result, '4242424242424241', 'other-secret-value');
    const list = await run(['token', 'list', '--json']);
    expect((JSON.parse(list.stdout) as { data: unknown[] }).data).toEqual([]);
  });

  it('a cancelled prompt exits 2 and creates nothing', async () => {
    const { VaultError } = await import('../../../core/errors/catalogue.ts');
    const result = await run(['tokenize'], {
      isTTY: true,
      answers: ['card', new VaultError('CANCELLED', 'cancelled')],
    });
    expectOneLineError(result, 2, /cancelled/);
  });
});
