import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAcceptableTraceId } from './trace-id.ts';
import { createTestServer, type TestServer } from '../test-support/test-server.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let server: TestServer;

beforeEach(async () => {
  server = await createTestServer();
});

afterEach(async () => {
  await server.dispose();
});

describe('SVC-TRACE-ID', () => {
  it('echoes a client-supplied trace id and logs under it', async () => {
    const response = await server.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'SVC-TRACE-ID': 'client.trace_01-A' },
    });
    expect(response.headers['svc-trace-id']).toBe('client.trace_01-A');
    const line = server.logs.lines().find((l) => l.msg === 'request completed');
    expect(line).toMatchObject({ traceId: 'client.trace_01-A' });
  });

  it('generates a UUID when none is sent', async () => {
    const first = await server.app.inject({ method: 'GET', url: '/healthz' });
    const second = await server.app.inject({ method: 'GET', url: '/healthz' });
    expect(first.headers['svc-trace-id']).toMatch(UUID);
    expect(second.headers['svc-trace-id']).toMatch(UUID);
    expect(first.headers['svc-trace-id']).not.toBe(second.headers['svc-trace-id']);
  });

  it('replaces an unacceptable trace id instead of echoing it', async () => {
    for (const weird of ['has space', 'x'.repeat(129), 'new\\nline', '{"json":1}', 'ü']) {
      const response = await server.app.inject({
        method: 'GET',
        url: '/healthz',
        headers: { 'svc-trace-id': weird },
      });
      expect(response.headers['svc-trace-id']).toMatch(UUID);
    }
    expect(server.logs.text()).not.toContain('has space');
  });

  it('is set on error responses too', async () => {
    const response = await server.app.inject({
      method: 'GET',
      url: '/missing',
      headers: { 'svc-trace-id': 'abc' },
    });
    expect(response.statusCode).toBe(404);
    expect(response.headers['svc-trace-id']).toBe('abc');
  });

  it('accepts exactly the documented alphabet and length', () => {
    expect(isAcceptableTraceId('a'.repeat(128))).toBe(true);
    expect(isAcceptableTraceId('a'.repeat(129))).toBe(false);
    expect(isAcceptableTraceId('')).toBe(false);
    expect(isAcceptableTraceId('A.z_0-9')).toBe(true);
    expect(isAcceptableTraceId('a/b')).toBe(false);
  });
});
