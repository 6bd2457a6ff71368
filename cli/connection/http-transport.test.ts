import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isVaultError, type VaultError } from '../../core/errors/catalogue.ts';
import { cliApiClient, cliFetch } from './http-transport.ts';

let server: http.Server;
let base: string;
beforeAll(async () => {
  server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url === '/empty') {
        response.writeHead(204).end();
        return;
      }
      if (request.url === '/tenants/self') {
        response.writeHead(404, { 'content-type': 'application/problem+json' });
        response.end(JSON.stringify({ status: 404, detail: 'no such thing' }));
        return;
      }
      response.setHeader('set-cookie', ['a=1', 'b=2']);
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          method: request.method,
          url: request.url,
          key: request.headers['svc-api-key'] ?? null,
          connection: request.headers.connection ?? null,
          body: Buffer.concat(chunks).toString(),
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe('cliFetch', () => {
  it('sends method, headers and body over one closed connection and answers as fetch does', async () => {
    const response = await cliFetch(`${base}/echo?x=1`, {
      method: 'POST',
      headers: { 'svc-api-key': 'key_test' },
      body: '{"a":1}',
    });
    expect(response.status).toBe(200);
    expect(response.ok).toBe(true);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await response.json()).toEqual({
      method: 'POST',
      url: '/echo?x=1',
      key: 'key_test',
      connection: 'close',
      body: '{"a":1}',
    });
  });

  it('gives a 204 no body', async () => {
    const response = await cliFetch(new Request(`${base}/empty`, { method: 'DELETE' }));
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });

  it('names a server that nothing listens on, and why (exit 3), with only its origin', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const failure = await cliFetch(`http://127.0.0.1:${port}/tokens?secret=x`).catch(
      (error: unknown) => error,
    );
    expect(isVaultError(failure, 'SERVICE_UNAVAILABLE')).toBe(true);
    expect((failure as VaultError).message).toBe(`cannot reach http://127.0.0.1:${port}: connection refused`);
    expect((failure as VaultError).exitCode).toBe(3);
    // The global fetch's failures (https) are named the same way.
    const refused = await cliFetch(`https://127.0.0.1:${port}/`).catch((error: unknown) => error);
    expect((refused as VaultError).message).toBe(
      `cannot reach https://127.0.0.1:${port}: connection refused`,
    );
  });

  it('names an unknown host', async () => {
    const failure = await cliFetch('http://no-such-host.invalid/').catch((error: unknown) => error);
    expect((failure as VaultError).message).toMatch(
      /^cannot reach http:\/\/no-such-host\.invalid: (no such host|the host name could not be resolved)/,
    );
  });

  it('leaves other schemes (https) to the global fetch', async () => {
    const response = await cliFetch('data:text/plain,handed%20over');
    expect(await response.text()).toBe('handed over');
  });

  it('carries the typed client: data and problems', async () => {
    const api = cliApiClient({ baseUrl: base, credentials: { apiKey: 'key_typed' } });
    const ok = await api.GET('/healthz');
    expect(ok.response.status).toBe(200);
    expect(ok.data).toMatchObject({ method: 'GET', url: '/healthz', key: 'key_typed' });
    const problem = await api.GET('/tenants/self');
    expect(problem.response.status).toBe(404);
    expect(problem.error).toMatchObject({ detail: 'no such thing' });
  });
});
