/**
 * What the soak bench's traffic needs, made over the API with the management key `svc start`
 * printed: a private application allowed to create, read, search and use tokens; tokens to read;
 * a card to search for and send through the proxy; a reactor running a trivial formula; a proxy to
 * the local HTTPS destination; and a marker token read only once the load is over, so the newest
 * entry of the audit log is known. `plannedRequests` turns one cycle of the mix into requests.
 */
import { TOKENIZE_PAYLOAD, searchBody } from '../http.ts';
import type { SoakKind } from './soak-mix.ts';
import type { PlannedRequest } from './soak-load.ts';

/** Tokens the reads go round. */
const READ_TOKENS = 100;
const CARD = '4242424242424242';

export interface SoakFixtures {
  readonly appKey: string;
  readonly readIds: readonly string[];
  readonly cardId: string;
  readonly markerId: string;
  readonly reactorId: string;
  readonly proxyKey: string;
}

async function call(
  url: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<unknown> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { 'svc-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text === '' ? null : (JSON.parse(text) as unknown);
}

export async function makeFixtures(
  url: string,
  managementKey: string,
  destinationPort: number,
): Promise<SoakFixtures> {
  const manage = (method: string, path: string, body?: unknown) =>
    call(url, managementKey, method, path, body);
  const app = (await manage('POST', '/applications', {
    name: 'soak',
    type: 'private',
    permissions: ['token:create', 'token:read', 'token:search', 'token:use'],
  })) as { id: string; key: string };
  const values: Record<string, unknown> = {};
  for (let i = 0; i < READ_TOKENS; i += 1) values[`t${i}`] = { type: 'token', data: `soak value ${i}` };
  values.card = { type: 'card_number', data: CARD };
  values.marker = { type: 'token', data: 'soak marker' };
  const tokens = (await call(url, app.key, 'POST', '/tokenize', values)) as Record<string, { id: string }>;
  const id = (name: string) => tokens[name]!.id;
  const formula = (await manage('POST', '/reactor-formulas', {
    name: 'soak',
    type: 'private',
    code: 'module.exports = async (req) => ({ raw: { ok: true } });',
    configuration: [],
    request_parameters: [],
  })) as { id: string };
  const reactor = (await manage('POST', '/reactors', {
    name: 'soak',
    formula: { id: formula.id },
    configuration: {},
    application: { id: app.id },
  })) as { id: string };
  const proxy = (await manage('POST', '/proxies', {
    name: 'soak',
    destination_url: `https://localhost:${destinationPort}/`,
  })) as { key: string };
  return {
    appKey: app.key,
    readIds: Array.from({ length: READ_TOKENS }, (_, i) => id(`t${i}`)),
    cardId: id('card'),
    markerId: id('marker'),
    reactorId: reactor.id,
    proxyKey: proxy.key,
  };
}

/**
 * One cycle of the mix as requests, repeated until the reads have gone round every read token once
 * (or one cycle when it holds no read).
 */
export function plannedRequests(fixtures: SoakFixtures, cycle: readonly SoakKind[]): PlannedRequest[] {
  const auth = { 'svc-api-key': fixtures.appKey };
  const json = { ...auth, 'content-type': 'application/json' };
  const readsPerCycle = cycle.filter((kind) => kind === 'read').length;
  const cycles = readsPerCycle === 0 ? 1 : Math.ceil(fixtures.readIds.length / readsPerCycle);
  let reads = 0;
  const requests: PlannedRequest[] = [];
  for (let c = 0; c < cycles; c += 1) {
    for (const kind of cycle) {
      switch (kind) {
        case 'read': {
          const id = fixtures.readIds[reads++ % fixtures.readIds.length]!;
          requests.push({ kind, method: 'GET', path: `/tokens/${encodeURIComponent(id)}`, headers: auth });
          break;
        }
        case 'tokenize':
          requests.push({ kind, method: 'POST', path: '/tokenize', headers: json, body: TOKENIZE_PAYLOAD });
          break;
        case 'search':
          requests.push({
            kind,
            method: 'POST',
            path: '/tokens/search',
            headers: json,
            body: searchBody(fixtures.cardId),
          });
          break;
        case 'react':
          requests.push({
            kind,
            method: 'POST',
            path: `/reactors/${fixtures.reactorId}/react`,
            headers: json,
            body: '{"args":{"a":1}}',
          });
          break;
        case 'proxy':
          requests.push({
            kind,
            method: 'POST',
            path: '/proxy/v1/charges',
            headers: { ...json, 'svc-proxy-key': fixtures.proxyKey },
            body: JSON.stringify({ amount: 1000, currency: 'usd', card_number: `{{ ${fixtures.cardId} }}` }),
          });
          break;
      }
    }
  }
  return requests;
}
