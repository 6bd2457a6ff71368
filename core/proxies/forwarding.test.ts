import { describe, expect, it } from 'vitest';
import { destinationFor, forwardedRequestHeaders, relayedResponseHeaders } from './forwarding.ts';

describe('the console session cookie and the proxy', () => {
  it('never forwards the console cookie to a destination, and keeps the caller’s other cookies', () => {
    // A console page calling /proxy on its own origin sends its session cookie along.
    expect(
      forwardedRequestHeaders([
        ['Cookie', 'svc_console_8080=svcs_secret; theirs=1'],
        ['Authorization', 'Bearer for-the-destination'],
      ]),
    ).toEqual([
      ['Cookie', 'theirs=1'],
      ['Authorization', 'Bearer for-the-destination'],
    ]);
    expect(forwardedRequestHeaders([['cookie', '__Host-svc_console=svcs_secret']])).toEqual([]);
  });

  it('never relays a Set-Cookie that would plant a console session in the browser', () => {
    expect(
      relayedResponseHeaders({
        'set-cookie': ['svc_console_8080=svcs_planted; Path=/', 'theirs=2; Path=/'],
        'content-type': 'text/plain',
      }),
    ).toEqual({ 'set-cookie': ['theirs=2; Path=/'], 'content-type': 'text/plain' });
    expect(relayedResponseHeaders({ 'set-cookie': '__Host-svc_console=x' })).toEqual({});
  });
});

describe('forwarding rules', () => {
  it('drops hop-by-hop and Connection-listed response headers, and keeps the rest as received', () => {
    expect(
      relayedResponseHeaders({
        connection: 'keep-alive, X-Hop',
        'keep-alive': 'timeout=60',
        'x-hop': '1',
        'content-type': 'application/json',
        vary: ['accept', 'origin'],
      }),
    ).toEqual({ 'content-type': 'application/json', vary: ['accept', 'origin'] });
  });

  it('joins base, path and query, without the proxy key', () => {
    const href = (base: string, path: string, query: string) => destinationFor(base, path, query).href;
    expect(href('https://api.example/v1/', '/a/b', 'x=1')).toBe('https://api.example/v1/a/b?x=1');
    expect(href('https://api.example/v1', '', '')).toBe('https://api.example/v1');
    expect(href('https://api.example/v1', '/', '')).toBe('https://api.example/v1/');
    expect(href('https://api.example/v1?k=0', '/a', 'svc-proxy-key=s&x=1')).toBe(
      'https://api.example/v1/a?k=0&x=1',
    );
    expect(href('https://api.example/v1?', '/a', 'SVC-Proxy-Key=s')).toBe('https://api.example/v1/a');
    expect(href('https://api.example/v1?k=0', '', '')).toBe('https://api.example/v1?k=0');
  });
});
