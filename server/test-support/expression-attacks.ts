/**
 * Expression attacks on a running server, each measured by the worst `/healthz` latency seen while
 * it runs (a probe polls `/healthz` one request at a time, concurrently). Shared by the attack
 * test (server/expression-attacks.test.ts) and the bench (bench/expressions.ts).
 *
 * The key needs `token:create` and `token:read` with a mask transform, so reads evaluate masks.
 */

const EMPTY_LOOP = '{% for i in (1..49000) %}{% endfor %}';
const HMAC_LOOP = "{% for i in (1..49000) %}{{ data | hmac: 'sha-512', 'a-key-for-the-attack' }}{% endfor %}";
/** A loop over a range written with numbers: its cost is plain from the expression alone. */
const LONG_LOOP = '{% for i in (1..99999) %}{% endfor %}';
/** A loop cut short whose range still makes all its numbers (one step each, before the check). */
const CUT_LOOP = '{% for i in (1..data) limit: 1 %}{% endfor %}';

/**
 * The dearest mask a token may store: loops that stay just inside the stored-mask budget, so each
 * read of the token costs that budget in full.
 */
const DEAR_MASK = { a: '{% for i in (1..450) %}{% endfor %}' };

/**
 * A mask that is cheap to run (its tags never render) but dense to parse, and different for every
 * token: 10 leaves of about 200 bytes, 2 KiB in all (the most a mask may have), so reading many
 * such tokens misses the template cache on every leaf.
 */
function coldMask(token: number): Record<string, string> {
  const chain = "{{ data | upcase | append: 'x' | downcase | strip | prepend: 'y' }}";
  return Object.fromEntries(
    Array.from({ length: 10 }, (_, leaf) => [
      `f${leaf}`,
      `{% if false %}${chain}${chain}{{ '${token}-${leaf}' }}{% endif %}`,
    ]),
  );
}

type Post = (path: string, body: unknown) => Send;

/**
 * Small requests that used to hold the event loop although they are refused: `[attack, send]`.
 * Also replayed one by one by server/expression-attacks.test.ts, which measures each one's stall.
 */
export function smallStallAttacks(post: Post): Array<[string, Send]> {
  return [
    [
      'search_indexes_long_loops',
      post('/tokens', {
        type: 'token',
        data: 'x',
        search_indexes: Array.from({ length: 10 }, () => LONG_LOOP),
      }),
    ],
    [
      'search_indexes_cut_loops',
      post('/tokens', {
        type: 'token',
        data: 'x',
        search_indexes: [`${'{% for i in (1..99999) limit: 1 %}{% endfor %}'.repeat(9)}x`],
      }),
    ],
    [
      'search_index_ranges_from_data',
      post('/tokenize', {
        a: { type: 'token', data: 1_900_000, search_indexes: [`${CUT_LOOP}x`] },
        b: { type: 'token', data: 1_900_000, search_indexes: [`${CUT_LOOP}x`] },
      }),
    ],
  ];
}

/** A tokenize body of 60,000 primitives (about 770 KB): far past every tokenize limit. */
export function sixtyThousandKeys(): Record<string, string> {
  return Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`k${i}`, 'x']));
}

export interface AttackResult {
  readonly attack: string;
  readonly requests: number;
  /** Response status → count. */
  readonly statuses: Readonly<Record<string, number>>;
  /** The body of every answer that was not a success (problem+json), in order. */
  readonly refusals: readonly string[];
  readonly elapsedMs: number;
  readonly worstHealthzMs: number;
}

export interface AttackOptions {
  /** Repetitions of each attack request. Default 3. */
  readonly rounds?: number;
}

function leaves(count: number, leaf: string): Record<string, string> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`f${i}`, leaf]));
}

/** Polls `/healthz` until stopped; resolves with the slowest answer in milliseconds. */
function probeHealth(baseUrl: string): { stop: () => Promise<number> } {
  let running = true;
  let worst = 0;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const response = await fetch(`${baseUrl}/healthz`);
      await response.arrayBuffer();
      worst = Math.max(worst, performance.now() - started);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return worst;
    },
  };
}

export type Send = () => Promise<Response>;

/** Sends one after the other, or all at once (`together`). */
async function measure(
  baseUrl: string,
  attack: string,
  sends: readonly Send[],
  options: { together?: boolean } = {},
): Promise<AttackResult> {
  const probe = probeHealth(baseUrl);
  const statuses: Record<string, number> = {};
  const refusals: string[] = [];
  const started = performance.now();
  const record = async (response: Response): Promise<void> => {
    const body = await response.text();
    if (!response.ok) refusals.push(body);
    statuses[response.status] = (statuses[response.status] ?? 0) + 1;
  };
  if (options.together === true) {
    for (const response of await Promise.all(sends.map((send) => send()))) await record(response);
  } else {
    for (const send of sends) await record(await send());
  }
  const elapsedMs = performance.now() - started;
  const worstHealthzMs = await probe.stop();
  return { attack, requests: sends.length, statuses, refusals, elapsedMs, worstHealthzMs };
}

/** Runs every attack in turn against `baseUrl` with `key`. */
export async function runExpressionAttacks(
  baseUrl: string,
  key: string,
  options: AttackOptions = {},
): Promise<AttackResult[]> {
  const rounds = options.rounds ?? 3;
  const headers = { 'content-type': 'application/json', 'svc-api-key': key };
  const post = (path: string, body: unknown): Send => {
    const text = JSON.stringify(body);
    return () => fetch(`${baseUrl}${path}`, { method: 'POST', headers, body: text });
  };
  const get =
    (path: string): Send =>
    () =>
      fetch(`${baseUrl}${path}`, { headers });
  const repeat = (send: Send, times = rounds): Send[] => Array.from({ length: times }, () => send);

  const results: AttackResult[] = [];
  // Not an attack: ordinary reads of a token with a cheap default mask, the stall to compare with.
  const plain = await post('/tokens', { type: 'card_number', data: '4242424242424242' })();
  const plainId = ((await plain.json()) as { id?: unknown }).id;
  results.push(
    await measure(
      baseUrl,
      'baseline_plain_get',
      repeat(get(`/tokens/${encodeURIComponent(String(plainId))}`), rounds * 10),
    ),
  );
  results.push(
    await measure(
      baseUrl,
      'mask_1000_leaves_of_empty_loops',
      repeat(post('/tokens', { type: 'token', data: 'x', mask: leaves(1000, EMPTY_LOOP) })),
    ),
  );
  results.push(
    await measure(
      baseUrl,
      'mask_300_leaves_of_hmac_loops',
      repeat(post('/tokens', { type: 'token', data: '4242424242424242', mask: leaves(300, HMAC_LOOP) })),
    ),
  );
  results.push(
    await measure(
      baseUrl,
      'mask_25_leaves_of_hmac_loops',
      repeat(post('/tokens', { type: 'token', data: '4242424242424242', mask: leaves(25, HMAC_LOOP) })),
    ),
  );
  // As many dear-but-valid definitions as one tokenize takes: the request budget is what stops it.
  const definitions = Object.fromEntries(
    Array.from({ length: 1000 }, (_, i) => [`t${i}`, { type: 'token', data: `v${i}`, mask: DEAR_MASK }]),
  );
  results.push(await measure(baseUrl, 'tokenize_1000_dear_masks', repeat(post('/tokenize', definitions))));

  // Small requests whose expressions cannot fit: refused from the syntax alone, or before a range
  // taken from the data is made (each number of a range used to cost memory only).
  for (const [attack, send] of smallStallAttacks(post))
    results.push(await measure(baseUrl, attack, repeat(send)));
  const [, longLoops] = smallStallAttacks(post)[0]!;
  results.push(
    await measure(baseUrl, 'search_indexes_long_loops_20_at_once', repeat(longLoops, 20), { together: true }),
  );
  results.push(await measure(baseUrl, 'tokenize_60000_keys', repeat(post('/tokenize', sixtyThousandKeys()))));

  // Stored dear masks, then reads: 100 tokens (a full list page). Written 25 at a time, because a
  // write evaluates each mask twice (the dry run and the response view) under one request budget.
  const ids: string[] = [];
  for (let batch = 0; batch < 4; batch += 1) {
    const stored = Object.fromEntries(
      Array.from({ length: 25 }, (_, i) => [
        `t${i}`,
        { type: 'token', data: `v${batch}-${i}`, mask: DEAR_MASK },
      ]),
    );
    const created = await post('/tokenize', stored)();
    const body = (await created.json()) as Record<string, { id?: unknown }>;
    for (const token of Object.values(body)) if (typeof token.id === 'string') ids.push(token.id);
  }
  const firstId = ids[0] ?? 'missing';
  results.push(
    await measure(
      baseUrl,
      'stored_dear_mask_get',
      repeat(get(`/tokens/${encodeURIComponent(firstId)}`), rounds * 10),
    ),
  );
  results.push(await measure(baseUrl, 'stored_dear_mask_list_page', repeat(get('/tokens?page=1&size=100'))));

  // Stored masks that miss the template cache on every read: each list page parses ~200 KB.
  for (let batch = 0; batch < 4; batch += 1) {
    const stored = Object.fromEntries(
      Array.from({ length: 25 }, (_, i) => [
        `t${i}`,
        { type: 'token', data: `c${batch}-${i}`, mask: coldMask(batch * 25 + i) },
      ]),
    );
    const created = await post('/tokenize', stored)();
    await created.arrayBuffer();
  }
  results.push(await measure(baseUrl, 'stored_cold_masks_list_page', repeat(get('/tokens?page=1&size=100'))));
  return results;
}
