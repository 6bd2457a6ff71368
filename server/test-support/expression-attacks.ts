/**
 * Expression attacks on a running server, each measured by the worst `/healthz` latency seen while
 * it runs (a probe polls `/healthz` one request at a time, concurrently). Shared by the attack
 * test (server/expression-attacks.test.ts) and the bench (bench/expressions.ts).
 *
 * The key needs `token:create` and `token:read` with a mask transform, so reads evaluate masks.
 */

const EMPTY_LOOP = '{% for i in (1..49000) %}{% endfor %}';
const HMAC_LOOP = "{% for i in (1..49000) %}{{ data | hmac: 'sha-512', 'a-key-for-the-attack' }}{% endfor %}";
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

type Send = () => Promise<Response>;

async function measure(baseUrl: string, attack: string, sends: readonly Send[]): Promise<AttackResult> {
  const probe = probeHealth(baseUrl);
  const statuses: Record<string, number> = {};
  const refusals: string[] = [];
  const started = performance.now();
  for (const send of sends) {
    const response = await send();
    const body = await response.text();
    if (!response.ok) refusals.push(body);
    statuses[response.status] = (statuses[response.status] ?? 0) + 1;
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
