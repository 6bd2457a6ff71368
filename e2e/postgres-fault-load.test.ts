import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempSchema, postgresOrSkipNotice } from '../core/test-support/postgres.ts';
import { startGate, throughPort, waitFor } from './postgres-gate.ts';
import { api, stop, svc, svcServe } from './support.ts';

const available = await postgresOrSkipNotice('e2e/postgres-fault-load.test.ts');

/** Requests in flight at once. */
const CONCURRENCY = 6;
/** A request that takes longer than this has hung: the test fails on it. */
const REQUEST_TIMEOUT_MS = 20_000;
/** Acknowledged requests wanted before the cut and after the recovery. */
const ACKNOWLEDGED_PER_PHASE = 40;
/** Requests that started and ended while the database was cut, each of which must be a 503. */
const REFUSED_DURING_CUT = 30;
/** The load stops by itself after this many requests, whatever happens. */
const MAX_REQUESTS = 5_000;
/** Luhn-valid card numbers, each tokenized with deduplication by many requests. */
const CARDS = ['4242424242424242', '5555555555554444', '378282246310005', '6011111111111117'];

type Phase = 'before' | 'cut' | 'restoring' | 'restored';

interface Outcome {
  readonly value: string;
  readonly card: string;
  readonly startedIn: Phase;
  readonly endedIn: Phase;
  /** The HTTP status, or 'timeout' for a request that did not answer in REQUEST_TIMEOUT_MS. */
  readonly status: number | 'timeout';
  readonly body: unknown;
}

interface Tokenized {
  plain: string;
  card: { id: string };
}

interface TokenJson {
  id: string;
  type: string;
  data: unknown;
}

/** POST /tokenize with a time limit: a hang is an outcome, not a stuck test. */
async function tokenize(url: string, key: string, value: string, card: string) {
  try {
    const response = await fetch(`${url}/tokenize`, {
      method: 'POST',
      headers: { 'SVC-API-KEY': key, 'content-type': 'application/json' },
      body: JSON.stringify({
        plain: value,
        card: { type: 'card_number', data: card, deduplicate_token: true },
      }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as unknown) : null };
  } catch (error) {
    if (error instanceof Error && error.name === 'TimeoutError')
      return { status: 'timeout' as const, body: null };
    throw error;
  }
}

/** Every token of the tenant the key reads, through the API (pages of 100). */
async function allTokens(url: string, key: string): Promise<TokenJson[]> {
  const tokens: TokenJson[] = [];
  for (let page = 1; ; page++) {
    const response = await api(url, 'GET', `/tokens?size=100&page=${page}`, { key });
    expect(response.status).toBe(200);
    const body = response.body as { data: TokenJson[]; pagination: { total_pages: number } };
    tokens.push(...body.data);
    if (page >= body.pagination.total_pages) return tokens;
  }
}

/**
 * A real `svc serve --database` under concurrent tokenize load while a TCP gate cuts its database
 * connections, then restores them. Every request is accounted for: a 200 is an acknowledged write,
 * a request that ran wholly inside the cut is a 503 problem, nothing is a 500 or a hang. After the
 * recovery every acknowledged token reads back with the value sent, the deduplicated cards are
 * still one token each, no value was stored twice (a write whose answer was lost may exist, once),
 * and the audit chains verify.
 */
describe.skipIf(!available)('a database cut under load, end to end', { timeout: 240_000 }, () => {
  it('acknowledged writes survive, requests during the cut are 503, dedup and the chains hold', async () => {
    const home = await mkdtemp(join(tmpdir(), 'svc-e2e-fault-'));
    const own = await makeTempSchema();
    const target = new URL(own.url);
    const gate = await startGate({ host: target.hostname, port: Number(target.port || 5432) });
    const env = {
      SVC_HOME: home,
      SVC_LOG_LEVEL: 'warn',
      SVC_DATABASE_URL: throughPort(own.url, gate.port),
    };
    let server: Awaited<ReturnType<typeof svcServe>> | undefined;
    try {
      expect((await svc(['init'], env)).code).toBe(0);
      server = await svcServe(['serve', '--port', '0'], env);
      const created = await svc(
        ['tenant', 'create', '--name', 'Loaded', '--owner-email', 'o@loaded.test', '--json'],
        env,
      );
      expect(created.code, created.stderr).toBe(0);
      const management = (JSON.parse(created.stdout) as { application: { key: string } }).application.key;
      const app = await api(server.url, 'POST', '/applications', {
        key: management,
        body: {
          name: 'loader',
          type: 'private',
          permissions: ['token:create', 'token:read'],
          rules: [
            {
              description: 'reads reveal, to compare with what was sent',
              priority: 1,
              container: '/',
              permissions: ['token:read'],
              transform: 'reveal',
            },
          ],
        },
      });
      expect(app.status).toBe(201);
      const key = (app.body as { key: string }).key;
      const url = server.url;

      // The load: CONCURRENCY loops, each sending one request at a time until told to stop.
      let phase: Phase = 'before';
      let stopping = false;
      let sent = 0;
      const outcomes: Outcome[] = [];
      const count = (match: (o: Outcome) => boolean) => outcomes.filter(match).length;
      const loop = async (): Promise<void> => {
        while (!stopping && sent < MAX_REQUESTS) {
          const n = sent++;
          const value = `load value ${n}`;
          const card = CARDS[n % CARDS.length]!;
          const startedIn = phase;
          const { status, body } = await tokenize(url, key, value, card);
          outcomes.push({ value, card, startedIn, endedIn: phase, status, body });
        }
      };
      const loops = Array.from({ length: CONCURRENCY }, () => loop());
      const progress = () =>
        `${sent} sent, phase ${phase}, statuses ${JSON.stringify(outcomes.map((o) => o.status))}`;

      await waitFor(() => count((o) => o.status === 200) >= ACKNOWLEDGED_PER_PHASE, progress, 60_000);
      await gate.close();
      phase = 'cut';
      await waitFor(
        () => count((o) => o.startedIn === 'cut' && o.endedIn === 'cut') >= REFUSED_DURING_CUT,
        progress,
        60_000,
      );
      phase = 'restoring';
      await gate.open();
      phase = 'restored';
      await waitFor(
        () => count((o) => o.startedIn === 'restored' && o.status === 200) >= ACKNOWLEDGED_PER_PHASE,
        progress,
        60_000,
      );
      stopping = true;
      await Promise.all(loops);

      // Every request answered: 200 or a 503 problem, never a 500 or a hang.
      expect(outcomes.filter((o) => o.status !== 200 && o.status !== 503)).toEqual([]);
      for (const o of outcomes.filter((o) => o.status === 503)) {
        expect(o.body).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
      }
      // Wholly inside the cut: refused, every one.
      const inside = outcomes.filter((o) => o.startedIn === 'cut' && o.endedIn === 'cut');
      expect(inside.map((o) => o.status)).toEqual(inside.map(() => 503));

      // Every acknowledged token reads back with the value sent; each card is one token.
      const acknowledged = outcomes.filter((o) => o.status === 200);
      const cardIds = new Map<string, Set<string>>();
      for (const o of acknowledged) {
        const body = o.body as Tokenized;
        const ids = cardIds.get(o.card) ?? new Set<string>();
        cardIds.set(o.card, ids.add(body.card.id));
      }
      for (const [card, ids] of cardIds) expect([...ids], card).toHaveLength(1);
      const stored = await allTokens(url, key);
      const byId = new Map(stored.map((t) => [t.id, t]));
      expect(byId.size).toBe(stored.length);
      for (const o of acknowledged) {
        expect(byId.get((o.body as Tokenized).plain)?.data, o.value).toBe(o.value);
      }
      for (const [card, ids] of cardIds) expect(byId.get([...ids][0]!)?.data).toBe(card);

      // Nothing stored but what was sent, nothing stored twice: a write whose answer was lost in
      // the cut may exist, but a value only once, and the cards stay one token each.
      const cards = stored.filter((t) => t.type === 'card_number');
      expect(cards.map((t) => t.data).sort()).toEqual(
        [...new Set(cards.map((t) => t.data as string))].sort(),
      );
      const plains = stored.filter((t) => t.type !== 'card_number').map((t) => t.data as string);
      expect(new Set(plains).size).toBe(plains.length);
      const sentValues = new Set(outcomes.map((o) => o.value));
      expect(plains.filter((v) => !sentValues.has(v))).toEqual([]);
      const unacknowledged = plains.length - acknowledged.length;
      expect(unacknowledged).toBeGreaterThanOrEqual(0);
      expect(unacknowledged).toBeLessThanOrEqual(outcomes.length - acknowledged.length);

      // Deduplication still finds each card's one token.
      for (const [card, ids] of cardIds) {
        const again = await tokenize(url, key, 'after the cut', card);
        expect(again.status).toBe(200);
        expect((again.body as Tokenized).card.id).toBe([...ids][0]);
      }

      const verified = await svc(['logs', 'verify'], env);
      expect(verified.code, verified.stderr).toBe(0);
      // The Default tenant of svc init and the loaded one.
      expect(verified.stdout).toMatch(/^ok: \d+ entries in 2 tenants verified/);
    } finally {
      if (server) expect(await stop(server.child), server.stderr()).toBe(0);
      await gate.end();
      await own.drop();
      await rm(home, { recursive: true, force: true });
    }
  });
});
