/**
 * The expression attacks against a real listener on 127.0.0.1: every one is answered 400 (nothing
 * stored) by a limit that counts (mask leaves, mask bytes, budget steps, a cost read from the
 * expression, a tokenize's values), never by the time backstop, so the work an attack can cause is
 * bounded whatever the machine's speed; reads of the dearest mask a token may store fit the counted
 * request budget and answer 200. The small refused requests are replayed one by one with the event
 * loop watched (the server runs in this process): each may hold it for a bounded time only. The
 * `/healthz` stall under all attacks is measured by `npm run bench -- --only expressions`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServices } from '../core/services.ts';
import type { Services } from '../core/services-contract.ts';
import { longestBlockWhile } from '../core/test-support/event-loop.ts';
import { FAST_KDF, createTempVault, type TempVault } from '../core/test-support/temp-vault.ts';
import { startServer, type RunningServer } from './listen.ts';
import {
  runExpressionAttacks,
  sixtyThousandKeys,
  smallStallAttacks,
  type AttackResult,
  type Send,
} from './test-support/expression-attacks.ts';
import { createTenantFixture } from './test-support/identity.ts';
import { captureLogs } from './test-support/log-capture.ts';
import { privateKey } from './test-support/tokens.ts';

let temp: TempVault;
let services: Services;
let running: RunningServer;
let results: AttackResult[];
let key: string;

beforeAll(async () => {
  temp = await createTempVault();
  services = createServices(temp.vault, { passwordKdf: FAST_KDF });
  const tenant = await createTenantFixture(services, 'Attacked');
  // Plain permissions: reads go through the token's mask.
  const app = await privateKey(services, tenant.tenant.id, { permissions: ['token:create', 'token:read'] });
  running = await startServer(temp.vault, {
    host: '127.0.0.1',
    port: 0,
    services,
    logger: captureLogs().logger,
  });
  // One round: the refusals are decided by counts, the same on every repetition.
  key = app.key;
  results = await runExpressionAttacks(running.url, app.key, { rounds: 1 });
}, 120_000);

afterAll(async () => {
  await running?.close();
  await temp?.dispose();
});

function result(attack: string): AttackResult {
  const found = results.find((r) => r.attack === attack);
  if (found === undefined) throw new Error(`no result for ${attack}`);
  return found;
}

describe('expression attacks on a listening server', () => {
  it.each([
    ['mask_1000_leaves_of_empty_loops', /must have at most 100 leaves/],
    ['mask_300_leaves_of_hmac_loops', /must have at most 100 leaves/],
    ['mask_25_leaves_of_hmac_loops', /must be at most 2048 bytes of expressions/],
    ['tokenize_1000_dear_masks', /this request's expressions exceeded their total of 50000 steps/],
    ['search_indexes_long_loops', /needs at least 103126 steps, more than the render step limit of 100000/],
    ['search_indexes_long_loops_20_at_once', /more than the render step limit of 100000/],
    ['search_indexes_cut_loops', /the token's expressions exceeded their total of 20000 steps/],
    ['search_index_ranges_from_data', /a range may hold at most 100000 numbers/],
    ['tokenize_60000_keys', /The body's objects may hold at most 50000 members in all/],
  ])('%s: refused with 400 by a counted limit', (attack, reason) => {
    const r = result(attack);
    expect(r.statuses).toEqual({ 400: r.requests });
    expect(r.refusals).toHaveLength(r.requests);
    for (const refusal of r.refusals) {
      expect(refusal).toMatch(reason);
      expect(refusal).not.toMatch(/total time/);
    }
  });

  it.each([
    'baseline_plain_get',
    'stored_dear_mask_get',
    'stored_dear_mask_list_page',
    'stored_cold_masks_list_page',
  ])('%s: the dearest storable mask reads fine, within the counted request budget', (attack) => {
    const r = result(attack);
    expect(r.statuses).toEqual({ 200: r.requests });
  });

  it('stored nothing for the refused attacks (only the 200 valid tokens and the plain one)', async () => {
    const count = await temp.vault.db
      .selectFrom('tokens')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(201);
  });
});

/** The most one refused request may hold the event loop: the server's stall target. */
const STALL_BOUND_MS = 50;
const TRIES = 5;

describe('small refused requests hold the event loop briefly', () => {
  const post = (path: string, body: unknown): Send => {
    const text = JSON.stringify(body);
    return () =>
      fetch(`${running.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'svc-api-key': key },
        body: text,
      });
  };

  it.each([...smallStallAttacks(post).map(([attack]) => attack), 'tokenize_60000_keys'])(
    '%s: refused with 400 naming the limit, holding the loop ≤ 50 ms in 4 of 5 tries',
    async (attack) => {
      const send =
        attack === 'tokenize_60000_keys'
          ? post('/tokenize', sixtyThousandKeys())
          : (smallStallAttacks(post).find(([name]) => name === attack)?.[1] as Send);
      const blocks: number[] = [];
      for (let i = 0; i < TRIES; i += 1) {
        const { result, longestMs } = await longestBlockWhile(async () => {
          const response = await send();
          return { status: response.status, body: await response.text() };
        });
        expect(result.status).toBe(400);
        expect(result.body).toMatch(/limit|at most|exceeded their total/);
        blocks.push(longestMs);
      }
      const within = blocks.filter((ms) => ms <= STALL_BOUND_MS);
      expect(
        within.length,
        `longest blocks: ${blocks.map((ms) => ms.toFixed(1)).join(', ')} ms`,
      ).toBeGreaterThanOrEqual(TRIES - 1);
    },
  );

  it('40 of them at once: each answered 400, none holding the loop for long', async () => {
    const [[, longLoops], [, cutLoops]] = smallStallAttacks(post) as [[string, Send], [string, Send]];
    const { result, longestMs } = await longestBlockWhile(() =>
      Promise.all(
        Array.from({ length: 40 }, async (_, i) => {
          const response = await (i % 2 === 0 ? longLoops : cutLoops)();
          await response.arrayBuffer();
          return response.status;
        }),
      ),
    );
    expect(result).toEqual(Array.from({ length: 40 }, () => 400));
    expect(longestMs).toBeLessThanOrEqual(STALL_BOUND_MS);
  });
});
