import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { SecureVersion } from 'node:tls';
import { generate } from 'selfsigned';

/** A CA and a server certificate it signed, valid for `localhost` and every `*.svc.test` name. */
export interface TestPki {
  readonly caPem: string;
  readonly certPem: string;
  readonly keyPem: string;
}

/** Host names the test certificate covers (the tests resolve them with a custom resolver). */
export const TEST_HOSTS = ['localhost', 'svc.test', '*.svc.test'] as const;

let cached: Promise<TestPki> | undefined;

/** One PKI per test process: EC keys, generated in a few milliseconds. */
export function testPki(): Promise<TestPki> {
  cached ??= (async () => {
    const notBeforeDate = new Date(Date.now() - 60_000);
    const notAfterDate = new Date(Date.now() + 7 * 24 * 3600_000);
    const ca = await generate([{ name: 'commonName', value: 'svc vault test CA' }], {
      keyType: 'ec',
      algorithm: 'sha256',
      notBeforeDate,
      notAfterDate,
      extensions: [
        { name: 'basicConstraints', cA: true, critical: true },
        { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
      ],
    });
    const leaf = await generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      algorithm: 'sha256',
      notBeforeDate,
      notAfterDate,
      ca: { key: ca.private, cert: ca.cert },
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
        { name: 'extKeyUsage', serverAuth: true },
        { name: 'subjectAltName', altNames: TEST_HOSTS.map((value) => ({ type: 2 as const, value })) },
      ],
    });
    return { caPem: ca.cert, certPem: leaf.cert, keyPem: leaf.private };
  })();
  return cached;
}

/** One request as the destination saw it. */
export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** Header names exactly as sent on the wire (case kept). */
  readonly rawHeaderNames: string[];
  readonly body: Buffer;
}

export type DestinationHandler = (req: ReceivedRequest, res: ServerResponse) => unknown;

export interface TestDestination {
  readonly port: number;
  /** Every request that reached the server, in order. */
  readonly received: ReceivedRequest[];
  /** TLS connections accepted (handshakes completed). */
  connections(): number;
  handle(handler: DestinationHandler): void;
  close(): Promise<void>;
}

/** By default: 200 with a JSON echo of what arrived. */
export const echo: DestinationHandler = (req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ method: req.method, url: req.url, body: req.body.toString('utf8') }));
};

/**
 * A real HTTPS server on 127.0.0.1 with a certificate from `testPki()`. `maxVersion` lets a test
 * stand up a server that only speaks old TLS.
 */
export async function startTestDestination(
  options: { host?: string; maxVersion?: SecureVersion; minVersion?: SecureVersion } = {},
): Promise<TestDestination> {
  const pki = await testPki();
  const received: ReceivedRequest[] = [];
  let handler: DestinationHandler = echo;
  let connections = 0;
  const server = createServer(
    {
      cert: pki.certPem,
      key: pki.keyPem,
      ...(options.maxVersion === undefined ? {} : { maxVersion: options.maxVersion }),
      ...(options.minVersion === undefined ? {} : { minVersion: options.minVersion }),
      // Old protocol versions need the old ciphers and security level to be offered at all.
      ...(options.maxVersion === 'TLSv1' || options.maxVersion === 'TLSv1.1'
        ? { ciphers: 'DEFAULT:@SECLEVEL=0' }
        : {}),
    },
    (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const names = req.rawHeaders.filter((_, i) => i % 2 === 0);
        const seen: ReceivedRequest = {
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          rawHeaderNames: names,
          body: Buffer.concat(chunks),
        };
        received.push(seen);
        void Promise.resolve(handler(seen, res)).catch((error: unknown) => {
          res.statusCode = 599;
          res.end(String(error));
        });
      });
    },
  );
  server.on('secureConnection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, options.host ?? '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    received,
    connections: () => connections,
    handle(next) {
      handler = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
