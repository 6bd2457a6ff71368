import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isVaultError } from '../errors/catalogue.ts';
import { parseAllowList } from './address-policy.ts';
import {
  UNREACHABLE_DETAIL,
  createOutboundClient,
  failureReason,
  type OutboundClient,
  type OutboundFailure,
} from './client.ts';
import type { OutboundSettings } from './settings.ts';
import { REFUSED_ADDRESSES } from './test-support/refused-addresses.ts';
import { startTestDestination, testPki, type TestDestination } from './test-support/https-destination.ts';

let destination: TestDestination;
let caPem: string;

beforeAll(async () => {
  caPem = (await testPki()).caPem;
  destination = await startTestDestination();
});
afterAll(async () => destination.close());

function settings(allow = '', timeoutMs = 5000): OutboundSettings {
  return { allow: parseAllowList(allow), caPem, timeoutMs };
}

function v4(address: string): LookupAddress {
  return { address, family: 4 };
}

/** A resolver over a fixed table: the tests never ask a real DNS server. */
function table(entries: Record<string, LookupAddress[]>) {
  return async (hostname: string): Promise<LookupAddress[]> => {
    const found = entries[hostname];
    if (found === undefined)
      throw Object.assign(new Error(`no such name ${hostname}`), { code: 'ENOTFOUND' });
    return found;
  };
}

/**
 * The VaultError code, or `refused` for a refusal by the address policy: callers see that as
 * DESTINATION_UNREACHABLE with the one detail every unreachable destination gets; only the cause
 * (for the log) says it was the policy.
 */
async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isVaultError(error, 'DESTINATION_UNREACHABLE') && failureReason(error).startsWith('refused by')) {
      expect(error.detail).toBe(UNREACHABLE_DETAIL);
      return 'refused';
    }
    if (isVaultError(error)) return error.code;
    throw error;
  }
  return 'reached';
}

async function withClient<T>(
  client: OutboundClient,
  run: (client: OutboundClient) => Promise<T>,
): Promise<T> {
  try {
    return await run(client);
  } finally {
    await client.close();
  }
}

describe('SSRF guard', () => {
  it.each([
    'https://127.0.0.1:PORT/',
    'https://[::1]:PORT/',
    'https://[::ffff:127.0.0.1]:PORT/',
    'https://[::ffff:7f00:1]:PORT/',
    'https://2130706433:PORT/',
    'https://0x7f.0.0.1:PORT/',
    'https://0177.0.0.1:PORT/',
    'https://127.1:PORT/',
    'https://10.0.0.1/',
    'https://169.254.169.254/latest/meta-data',
    'https://[fe80::1]/',
    'https://8.8.8.8/',
    'http://localhost:PORT/',
    'https://user:secret@localhost:PORT/',
  ])('refuses the URL %s before any connection', async (template) => {
    const url = template.replace('PORT', String(destination.port));
    const before = destination.connections();
    await withClient(createOutboundClient(settings('localhost,127.0.0.0/8')), async (client) => {
      expect(await codeOf(client.request({ url, method: 'GET' }))).toBe('VALIDATION_FAILED');
    });
    expect(destination.connections()).toBe(before);
  });

  it.each(REFUSED_ADDRESSES)(
    'refuses the literal %s (%s) as a host before any connection',
    async (address) => {
      const host = address.includes(':') ? `[${address}]` : address;
      const before = destination.connections();
      await withClient(createOutboundClient(settings('0.0.0.0/0,::/0')), async (client) => {
        expect(
          await codeOf(client.request({ url: `https://${host}:${destination.port}/`, method: 'GET' })),
        ).toBe('VALIDATION_FAILED');
      });
      expect(destination.connections()).toBe(before);
    },
  );

  it.each(REFUSED_ADDRESSES)('refuses a DNS name resolving to %s (%s)', async (address) => {
    const family = address.includes(':') ? 6 : 4;
    const before = destination.received.length;
    const resolve = table({ 'api.svc.test': [{ address, family }] });
    await withClient(createOutboundClient(settings(), { resolve }), async (client) => {
      const url = `https://api.svc.test:${destination.port}/x`;
      expect(await codeOf(client.request({ url, method: 'GET' }))).toBe('refused');
    });
    expect(destination.received.length).toBe(before);
  });

  it('refuses a name when any one of its addresses is refused, even after a routable one', async () => {
    const resolve = table({ 'api.svc.test': [v4('93.184.216.34'), v4('127.0.0.1')] });
    await withClient(createOutboundClient(settings(), { resolve }), async (client) => {
      const url = `https://api.svc.test:${destination.port}/`;
      expect(await codeOf(client.request({ url, method: 'GET' }))).toBe('refused');
    });
  });

  it('reaches a loopback destination only when allow-listed, by range or by host name', async () => {
    const resolve = table({ 'api.svc.test': [v4('127.0.0.1')], localhost: [v4('127.0.0.1')] });
    const before = destination.received.length;
    await withClient(createOutboundClient(settings(), { resolve }), async (client) => {
      expect(
        await codeOf(client.request({ url: `https://localhost:${destination.port}/`, method: 'GET' })),
      ).toBe('refused');
    });
    expect(destination.received.length).toBe(before);
    for (const allow of ['127.0.0.0/8', 'api.svc.test']) {
      await withClient(createOutboundClient(settings(allow), { resolve }), async (client) => {
        const response = await client.request({
          url: `https://api.svc.test:${destination.port}/ok`,
          method: 'GET',
        });
        expect(response.status).toBe(200);
      });
    }
    expect(destination.received.length).toBe(before + 2);
  });

  it('checks the addresses again on every new connection (no DNS-rebinding window)', async () => {
    let answer: LookupAddress[] = [v4('127.0.0.1')];
    const resolve = async (): Promise<LookupAddress[]> => answer;
    // The allow list covers only the first answer; the server closes each connection.
    destination.handle((_req, res) => {
      res.setHeader('connection', 'close');
      res.end('first');
    });
    const before = destination.received.length;
    try {
      await withClient(createOutboundClient(settings('127.0.0.1/32'), { resolve }), async (client) => {
        const url = `https://rebind.svc.test:${destination.port}/`;
        expect((await client.request({ url, method: 'GET' })).status).toBe(200);
        answer = [v4('127.0.0.2')];
        expect(await codeOf(client.request({ url, method: 'GET' }))).toBe('refused');
        answer = [{ address: '::ffff:127.0.0.2', family: 6 }];
        expect(await codeOf(client.request({ url, method: 'GET' }))).toBe('refused');
      });
    } finally {
      destination.handle((req, res) => res.end(req.url));
    }
    expect(destination.received.length).toBe(before + 1);
  });

  it('does not follow redirects: the 3xx is the answer', async () => {
    const resolve = table({ 'api.svc.test': [v4('127.0.0.1')] });
    destination.handle((_req, res) => {
      res.statusCode = 302;
      res.setHeader('location', `https://other.svc.test:${destination.port}/elsewhere`);
      res.end();
    });
    const before = destination.received.length;
    try {
      await withClient(createOutboundClient(settings('127.0.0.0/8'), { resolve }), async (client) => {
        const response = await client.request({
          url: `https://api.svc.test:${destination.port}/`,
          method: 'GET',
        });
        expect(response.status).toBe(302);
        expect(response.headers.location).toContain('/elsewhere');
      });
    } finally {
      destination.handle((req, res) => res.end(req.url));
    }
    expect(destination.received.length).toBe(before + 1);
    expect(destination.received.at(-1)?.url).toBe('/');
  });
});

describe('TLS and timeouts', () => {
  const resolve = table({ 'api.svc.test': [v4('127.0.0.1')] });

  it('refuses a destination that speaks only TLS 1.0/1.1', async () => {
    const old = await startTestDestination({ minVersion: 'TLSv1', maxVersion: 'TLSv1.1' });
    try {
      await withClient(createOutboundClient(settings('127.0.0.0/8'), { resolve }), async (client) => {
        const url = `https://api.svc.test:${old.port}/`;
        expect(await codeOf(client.request({ url, method: 'GET' }))).toBe('DESTINATION_UNREACHABLE');
      });
      expect(old.received).toHaveLength(0);
    } finally {
      await old.close();
    }
  });

  it('trusts the test CA only when configured', async () => {
    const untrusting = createOutboundClient({ ...settings('127.0.0.0/8'), caPem: null }, { resolve });
    await withClient(untrusting, async (client) => {
      const url = `https://api.svc.test:${destination.port}/`;
      expect(await codeOf(client.request({ url, method: 'GET' }))).toBe('DESTINATION_UNREACHABLE');
    });
  });

  it('answers DESTINATION_TIMEOUT (408) when the destination does not answer in time', async () => {
    destination.handle(() => undefined);
    try {
      await withClient(createOutboundClient(settings('127.0.0.0/8', 150), { resolve }), async (client) => {
        const url = `https://api.svc.test:${destination.port}/slow`;
        const failure = await client.request({ url, method: 'GET' }).catch((error: unknown) => error);
        expect(isVaultError(failure, 'DESTINATION_TIMEOUT')).toBe(true);
        expect(isVaultError(failure) && failure.status).toBe(408);
      });
    } finally {
      destination.handle((req, res) => res.end(req.url));
    }
  });

  it('sends method, headers and a binary body exactly', async () => {
    const body = Buffer.from([0, 1, 2, 255, 254, 10, 13]);
    await withClient(createOutboundClient(settings('127.0.0.0/8'), { resolve }), async (client) => {
      const response = await client.request({
        url: `https://api.svc.test:${destination.port}/a/b?c=d`,
        method: 'PUT',
        headers: { 'x-custom': 'v', 'content-type': 'application/octet-stream' },
        body,
      });
      expect(response.status).toBe(200);
    });
    const seen = destination.received.at(-1);
    expect(seen?.method).toBe('PUT');
    expect(seen?.url).toBe('/a/b?c=d');
    expect(seen?.headers['x-custom']).toBe('v');
    expect(seen?.body.equals(body)).toBe(true);
  });

  it('can be warmed before its first request, and closes whether or not it was used', async () => {
    await withClient(createOutboundClient(settings('127.0.0.0/8'), { resolve }), async (client) => {
      await client.warm();
      await client.warm();
      const response = await client.request({
        url: `https://api.svc.test:${destination.port}/w`,
        method: 'GET',
      });
      expect(response.status).toBe(200);
    });
    await createOutboundClient(settings()).close();
  });

  it('caps buffered response bodies', async () => {
    destination.handle((_req, res) => res.end(Buffer.alloc(4096)));
    try {
      await withClient(createOutboundClient(settings('127.0.0.0/8'), { resolve }), async (client) => {
        const url = `https://api.svc.test:${destination.port}/`;
        expect(await codeOf(client.request({ url, method: 'GET' }, { maxBytes: 1000 }))).toBe(
          'DESTINATION_UNREACHABLE',
        );
      });
    } finally {
      destination.handle((req, res) => res.end(req.url));
    }
  });
});

describe('one answer for every refused or unreachable destination', () => {
  it('refused by policy, unresolvable, connection refused and TLS failures answer alike; the log listener tells them apart', async () => {
    const old = await startTestDestination({ minVersion: 'TLSv1', maxVersion: 'TLSv1.1' });
    const closed = await startTestDestination();
    const closedPort = closed.port;
    await closed.close();
    const resolve = table({
      localhost: [v4('127.0.0.1')],
      'internal.svc.test': [v4('10.0.0.7')],
      'api.svc.test': [v4('127.0.0.1')],
    });
    const allowed = settings('api.svc.test');
    const failures: OutboundFailure[] = [];
    const answers: Array<{ code: string; status: number; detail: string }> = [];
    try {
      for (const [client, url] of [
        [createOutboundClient(allowed, { resolve }), `https://localhost:${destination.port}/a?secret=1`],
        [createOutboundClient(allowed, { resolve }), 'https://internal.svc.test/a?secret=1'],
        [createOutboundClient(allowed, { resolve }), 'https://nowhere.svc.test/a?secret=1'],
        [createOutboundClient(allowed, { resolve }), `https://api.svc.test:${closedPort}/a?secret=1`],
        [createOutboundClient(allowed, { resolve }), `https://api.svc.test:${old.port}/a?secret=1`],
        [
          createOutboundClient({ ...allowed, caPem: null }, { resolve }),
          `https://api.svc.test:${destination.port}/a?secret=1`,
        ],
      ] as const) {
        const stop = client.onFailure((failure) => failures.push(failure));
        await withClient(client, async () => {
          const failure = await client.request({ url, method: 'GET' }).catch((error: unknown) => error);
          if (!isVaultError(failure)) throw new Error(`expected a VaultError for ${url}`);
          answers.push({ code: failure.code, status: failure.status, detail: failure.detail });
        });
        stop();
      }
    } finally {
      await old.close();
    }
    expect(new Set(answers.map((a) => JSON.stringify(a)))).toEqual(
      new Set([JSON.stringify({ code: 'DESTINATION_UNREACHABLE', status: 502, detail: UNREACHABLE_DETAIL })]),
    );
    const reasons = failures.map((f) => `${f.host}: ${f.reason}`);
    expect(reasons).toHaveLength(6);
    expect(reasons[0]).toBe(
      'localhost: refused by the address policy: localhost resolves to a loopback address',
    );
    expect(reasons[1]).toBe(
      'internal.svc.test: refused by the address policy: internal.svc.test resolves to a private address',
    );
    expect(reasons[2]).toBe('nowhere.svc.test: ENOTFOUND');
    expect(reasons[3]).toBe('api.svc.test: ECONNREFUSED');
    // OpenSSL's code for the refused protocol version (its name varies between OpenSSL versions).
    expect(reasons[4]).toMatch(/^api\.svc\.test: ERR_SSL_[A-Z0-9_]+$/);
    expect(reasons[5]).toBe('api.svc.test: UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    for (const reason of reasons) expect(reason).not.toContain('secret');
  });
});
