import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReactorWorld } from '../test-support/reactors.ts';

/**
 * Code that never ends can only meet its deadline, and whether that deadline is 1.5 s or 0.5 s the
 * answer is the same 408: the formulas that may end that way (408 among their expected statuses) run
 * under the shorter one, so each burns a third of the CPU. The others keep the usual budget, which
 * they need on a loaded machine to fail for their own reason, not the deadline's.
 */
const BRISK_TIMEOUT_MS = 500;

let patient: ReactorWorld;
let brisk: ReactorWorld;
beforeAll(async () => {
  [patient, brisk] = await Promise.all([ReactorWorld.create(), ReactorWorld.create(BRISK_TIMEOUT_MS)]);
});
afterAll(async () => Promise.all([patient.dispose(), brisk.dispose()]));

/** Hostile formulas: each fails cleanly with the right problem, and the next invocation still works. */
const HOSTILE: Array<[string, string, number | number[]]> = [
  [
    'constructor walk to process',
    `module.exports = async () => ({ raw: (function(){}).constructor('return typeof process')() });`,
    200,
  ],
  [
    'Function constructor reads process',
    `module.exports = async () => { return { raw: Function('return process.env')() }; };`,
    500,
  ],
  [
    'prototype walk to a host object',
    `module.exports = async (req) => ({ raw: req.constructor.constructor('return this')().process === undefined });`,
    200,
  ],
  ['require fs', `module.exports = async () => { require('fs'); };`, 500],
  [
    'require child_process',
    `module.exports = async () => { require('child_process').execSync('id'); };`,
    500,
  ],
  ['require node:fs', `module.exports = async () => { require('node:fs'); };`, 500],
  ['dynamic import', `module.exports = async () => { await import('fs'); };`, 500],
  [
    'globalThis enumeration',
    `module.exports = async () => ({ raw: Object.getOwnPropertyNames(globalThis).filter((n) => /process|require|Buffer|setTimeout|__/.test(n)) });`,
    200,
  ],
  ['infinite loop', `module.exports = async () => { for (;;) {} };`, 408],
  [
    'infinite loop in module body at invoke',
    `module.exports = async () => { while (true) { Math.random(); } };`,
    408,
  ],
  ['infinite loop in a promise job', `module.exports = async () => { await null; for (;;) {} };`, 408],
  ['deep recursion', `function f(n) { return f(n + 1) + 1; } module.exports = async () => f(0);`, 500],
  [
    'memory bomb (array of strings)',
    `module.exports = async () => { const a = []; for (;;) a.push('x'.repeat(1 << 20) + a.length); };`,
    500,
  ],
  ['memory bomb (string doubling)', `module.exports = async () => { let s = 'x'; for (;;) s += s; };`, 500],
  [
    'typed array bomb',
    `module.exports = async () => { const a = []; for (;;) a.push(new Uint8Array(8 << 20)); };`,
    500,
  ],
  ['huge output', `module.exports = async () => ({ raw: 'x'.repeat(3 << 20) });`, 500],
  [
    'promise flood',
    `module.exports = async () => { const ps = []; for (let i = 0; i < 1e6; i++) ps.push(Promise.resolve(i)); await Promise.all(ps); for (;;) {} };`,
    [408, 500],
  ],
  ['never-settling promise', `module.exports = () => new Promise(() => {});`, 500],
  ['setTimeout', `module.exports = async () => { setTimeout(() => {}, 10); };`, 500],
  ['setInterval', `module.exports = async () => { setInterval(() => {}, 10); };`, 500],
  [
    'state from another invocation',
    `module.exports = async () => ({ raw: typeof globalThis.leaked === 'undefined' ? 'clean' : 'dirty', set: (globalThis.leaked = 1) });`,
    200,
  ],
  [
    'svc beyond the application permissions (delete)',
    `module.exports = async (req) => { await req.svc.tokens.delete('anything'); };`,
    500,
  ],
  [
    'svc search without token:search',
    `module.exports = async (req) => { await req.svc.tokens.search({ query: 'id:x' }); };`,
    500,
  ],
  [
    'svc host-call flood',
    `module.exports = async (req) => { await Promise.all(Array.from({ length: 1000 }, () => req.svc.tokens.retrieve('x'))); };`,
    500,
  ],
  ['fetch to 127.0.0.1', `module.exports = async () => { await fetch('https://127.0.0.1/'); };`, 500],
  ['fetch to a private range', `module.exports = async () => { await fetch('https://10.0.0.1/'); };`, 500],
  ['fetch to a file URL', `module.exports = async () => { await fetch('file:///etc/passwd'); };`, 500],
  [
    'eval escape',
    `module.exports = async () => ({ raw: eval('typeof require') + eval('typeof process') });`,
    200,
  ],
  [
    'error message leak',
    `module.exports = async (req) => { throw new Error(JSON.stringify(req.args)); };`,
    500,
  ],
  ['toJSON loop on output', `module.exports = async () => ({ raw: { toJSON() { for (;;) {} } } });`, 408],
  ['circular output', `module.exports = async () => { const o = {}; o.o = o; return { raw: o }; };`, 500],
  [
    'overwritten JSON.stringify',
    `module.exports = async () => { JSON.stringify = () => { throw new Error('x'); }; return { raw: 1 }; };`,
    [200, 500],
  ],
  [
    'huge thrown errors map',
    `const { BadRequestError } = require('@svc/reactor-errors'); module.exports = async () => { throw new BadRequestError(Object.fromEntries(Array.from({ length: 10000 }, (_, i) => ['k' + i, 'v']))); };`,
    400,
  ],
  [
    'Proxy trap on the result',
    `module.exports = async () => new Proxy({}, { get() { for (;;) {} } });`,
    [408, 500],
  ],
];

describe('sandbox escape suite', () => {
  const healthy = new Map<ReactorWorld, string>();
  beforeAll(async () => {
    for (const world of [patient, brisk]) {
      healthy.set(
        world,
        await world.reactor(await world.formula('module.exports = async () => ({ raw: "ok" });')),
      );
    }
  });

  it('has at least 30 hostile formulas', () => {
    expect(HOSTILE.length).toBeGreaterThanOrEqual(30);
  });

  it.each(HOSTILE)('%s fails cleanly and the next invocation works', async (_name, code, status) => {
    const world = [status].flat().includes(408) ? brisk : patient;
    const id = await world.reactor(await world.formula(code));
    const r = await world.react(id, { secret: `{{${world.nameId}}}` });
    expect([status].flat(), `${r.status} ${JSON.stringify(r.body)}`).toContain(r.status);
    const text = JSON.stringify(r.body);
    expect(text).not.toContain('Ada');
    expect(text).not.toMatch(/\/work\/|node:internal|at Object\./);
    if (r.status === 200) {
      const raw = JSON.stringify(r.body?.['raw']);
      expect(raw).not.toMatch(/"function"|"object"/);
      expect(raw).not.toContain('dirty');
    }
    const next = await world.react(healthy.get(world) as string, {});
    expect(next.status).toBe(200);
    expect(next.body).toEqual({ raw: 'ok' });
  });
});
