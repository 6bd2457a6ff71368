import { describe, expect, it } from 'vitest';
import { plannedRequests, type SoakFixtures } from './soak-fixtures.ts';

const fixtures: SoakFixtures = {
  appKey: 'key_app',
  readIds: ['tok_a', 'tok_b', 'tok_c'],
  cardId: 'tok_card',
  markerId: 'tok_marker',
  reactorId: 'r-1',
  proxyKey: 'key_proxy',
};

describe('plannedRequests', () => {
  it('repeats the cycle until the reads went round every read token', () => {
    const requests = plannedRequests(fixtures, ['read', 'proxy']);
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /tokens/tok_a',
      'POST /proxy/v1/charges',
      'GET /tokens/tok_b',
      'POST /proxy/v1/charges',
      'GET /tokens/tok_c',
      'POST /proxy/v1/charges',
    ]);
    const proxy = requests[1]!;
    expect(proxy.headers).toMatchObject({ 'svc-api-key': 'key_app', 'svc-proxy-key': 'key_proxy' });
    expect(proxy.body).toContain('{{ tok_card }}');
  });

  it('never reads the marker, and is one cycle without reads', () => {
    const requests = plannedRequests(fixtures, ['tokenize', 'search', 'react']);
    expect(requests.map((r) => r.kind)).toEqual(['tokenize', 'search', 'react']);
    expect(requests.map((r) => r.path)).toEqual(['/tokenize', '/tokens/search', '/reactors/r-1/react']);
    expect(JSON.stringify(requests)).not.toContain('tok_marker');
  });
});
