import { describe, expect, it } from 'vitest';
import { forwardedRequestHeaders, relayedResponseHeaders } from './forwarding.ts';

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
