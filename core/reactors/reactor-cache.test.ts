import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Principal } from '../access/principal.ts';
import { codeOf, openServicesFixture } from '../test-support/services-fixture.ts';
import type { ServicesFixture } from '../test-support/services-fixture.ts';

/**
 * Invocations take the loaded reactor from memory on the embedded vault: every change to the
 * reactor, its formula, its application or its tenant must show in the very next invocation, and
 * nothing of one invocation may reach the next.
 */
describe('reactors kept loaded for invocations', () => {
  let f: ServicesFixture;
  let operator: Principal;
  let caller: Principal;
  beforeEach(async () => {
    f = await openServicesFixture();
    const { tenant } = await f.services.tenants.create({ name: 't', withApplication: false }, null);
    operator = { kind: 'operator', tenantId: tenant.id };
    const app = await f.services.applications.create(operator, {
      name: 'caller',
      type: 'private',
      permissions: ['token:use', 'token:create'],
    });
    caller = (await f.services.auth.authenticateApiKey(app.key))!;
  });
  afterEach(async () => {
    await f.services.reactors.close();
    await f.close();
  });

  const formulaWith = async (code: string, configuration: Array<{ name: string; type: 'string' }> = []) =>
    (
      await f.services.reactors.createFormula(operator, {
        name: 'f',
        type: 'private',
        code,
        configuration: configuration.map((c) => ({ ...c, description: '' })),
      })
    ).formula;

  it('runs the updated configuration, formula code and application right after each change', async () => {
    const formula = await formulaWith(
      'module.exports = async (req) => ({ raw: { v: 1, c: req.configuration.c, svc: req.svc !== null } });',
      [{ name: 'c', type: 'string' }],
    );
    const app = await f.services.applications.create(operator, {
      name: 'acts',
      type: 'private',
      permissions: ['token:create'],
    });
    const reactor = await f.services.reactors.create(operator, {
      name: 'r',
      formula: { id: formula.id },
      configuration: { c: 'one' },
    });
    const raw = async () => {
      const result = await f.services.reactors.react(caller, reactor.id, {});
      return result.kind === 'response' ? result.body.raw : result;
    };
    expect(await raw()).toEqual({ v: 1, c: 'one', svc: false });
    expect(await raw()).toEqual({ v: 1, c: 'one', svc: false });

    await f.services.reactors.update(operator, reactor.id, {
      name: 'r',
      configuration: { c: 'two' },
      application: { id: app.id },
    });
    expect(await raw()).toEqual({ v: 1, c: 'two', svc: true });

    await f.services.reactors.updateFormula(operator, formula.id, {
      name: 'f',
      type: 'private',
      code: 'module.exports = async (req) => ({ raw: { v: 2, c: req.configuration.c, svc: req.svc !== null } });',
      configuration: [{ name: 'c', type: 'string', description: '' }],
    });
    expect(await raw()).toEqual({ v: 2, c: 'two', svc: true });

    // Deleting the application sets the reactor's application to none.
    await f.services.applications.delete(operator, app.id);
    expect(await raw()).toEqual({ v: 2, c: 'two', svc: false });

    await f.services.reactors.delete(operator, reactor.id);
    expect(await codeOf(f.services.reactors.react(caller, reactor.id, {}))).toBe('NOT_FOUND');
  });

  it('keeps every invocation apart: a fresh context, and the loaded reactor unchanged by the code', async () => {
    const formula = await formulaWith(
      [
        'module.exports = async (req) => {',
        '  const seen = typeof globalThis.left === "string" ? globalThis.left : null;',
        '  globalThis.left = req.args.mark;',
        '  let touched = true;',
        '  try { req.configuration.c = "changed"; } catch (e) { touched = false; }',
        '  return { raw: { seen, c: req.configuration.c, touched } };',
        '};',
      ].join('\n'),
      [{ name: 'c', type: 'string' }],
    );
    const reactor = await f.services.reactors.create(operator, {
      name: 'r',
      formula: { id: formula.id },
      configuration: { c: 'kept' },
    });
    const first = await f.services.reactors.react(caller, reactor.id, { mark: 'secret-of-the-first' });
    const second = await f.services.reactors.react(caller, reactor.id, { mark: 'second' });
    expect(first.kind === 'response' && first.body.raw).toEqual({ seen: null, c: 'changed', touched: true });
    // Nothing of the first invocation (its globals, its change to its copy of the configuration).
    expect(second.kind === 'response' && second.body.raw).toEqual({
      seen: null,
      c: 'changed',
      touched: true,
    });
    expect((await f.services.reactors.get(operator, reactor.id)).configuration).toEqual({ c: 'kept' });
  });

  it('refuses the reactor to another tenant, cached or not', async () => {
    const formula = await formulaWith('module.exports = async () => ({ raw: 1 });');
    const reactor = await f.services.reactors.create(operator, { name: 'r', formula: { id: formula.id } });
    expect((await f.services.reactors.react(caller, reactor.id, {})).kind).toBe('response');
    const { tenant } = await f.services.tenants.create({ name: 'other', withApplication: false }, null);
    const other = await f.services.applications.create(
      { kind: 'operator', tenantId: tenant.id },
      { name: 'o', type: 'private', permissions: ['token:use'] },
    );
    const stranger = (await f.services.auth.authenticateApiKey(other.key))!;
    expect(await codeOf(f.services.reactors.react(stranger, reactor.id, {}))).toBe('NOT_FOUND');
  });
});
