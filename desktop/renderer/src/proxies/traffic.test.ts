import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../audit/entries';
import { exampleCall } from './example-call';
import { invocationOf, statusClass } from './traffic';

const invoke = (message: string, patch: Partial<AuditEntry> = {}): AuditEntry => ({
  id: 'e1',
  tenant_id: 't',
  actor_id: 'a1',
  actor_type: 'application',
  actor_name: 'Checkout backend',
  entity_type: 'proxy',
  entity_id: 'p1',
  operation: 'invoke',
  entity_ids: null,
  revealed: null,
  message,
  created_at: '2026-01-01T00:00:00.000Z',
  ...patch,
});

describe('invocationOf', () => {
  it('reads method, host, status, duration and caller from an invocation entry', () => {
    expect(invocationOf(invoke('Proxy invoked: POST api.example.com → 201 in 84 ms'))).toEqual({
      id: 'e1',
      at: '2026-01-01T00:00:00.000Z',
      method: 'POST',
      host: 'api.example.com',
      status: 201,
      durationMs: 84,
      caller: 'Checkout backend',
    });
  });

  it('reads entries written before durations were recorded, and skips any other entry', () => {
    expect(invocationOf(invoke('Proxy invoked: GET h.example → 502'))).toMatchObject({
      status: 502,
      durationMs: null,
    });
    expect(invocationOf(invoke('Proxy read', { operation: 'read' }))).toBeNull();
    expect(invocationOf(invoke('something else'))).toBeNull();
  });
});

describe('statusClass', () => {
  it('tells success, the caller’s errors and failures apart', () => {
    expect([200, 302, 404, 503].map(statusClass)).toEqual(['ok', 'other', 'client-error', 'server-error']);
  });
});

describe('exampleCall', () => {
  it('names the proxy by its key and asks for an application key only when the proxy requires one', () => {
    const open = exampleCall('http://127.0.0.1:8080', { key: 'pk123', require_auth: false });
    expect(open).toContain("curl -X POST 'http://127.0.0.1:8080/proxy'");
    expect(open).toContain("-H 'svc-proxy-key: pk123'");
    expect(open).not.toContain('SVC-API-KEY');
    const guarded = exampleCall('http://127.0.0.1:8080', { key: 'pk123', require_auth: true });
    expect(guarded).toContain('-H "SVC-API-KEY: $SVC_API_KEY"');
    // Every line but the last continues the command.
    expect(
      guarded
        .split('\n')
        .slice(0, -1)
        .every((line) => line.endsWith('\\')),
    ).toBe(true);
  });
});
