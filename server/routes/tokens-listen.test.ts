/** The token API over a real listener (fetch, real sockets), and the expiry sweeper startServer runs. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createServices, outboxTenancyOptions } from '../../core/services.ts';
import type { Services } from '../../core/services-contract.ts';
import { FAST_KDF, type TempVault } from '../../core/test-support/temp-vault.ts';
import { createTestVault } from '../../core/test-support/test-vault.ts';
import { TOKEN_MESSAGES } from '../../core/tokens/index.ts';
import { ManualClock } from '../../core/vault/clock.ts';
import { startServer, type RunningServer, type StartServerOptions } from '../listen.ts';
import { createTenantFixture, type TenantFixture } from '../test-support/identity.ts';
import { captureLogs } from '../test-support/log-capture.ts';
import {
  MERGE_PATCH,
  privateKey,
  rule,
  TOKEN_PERMISSIONS,
  type TokenJson,
  type TokenPageJson,
} from '../test-support/tokens.ts';

const HOUR = 60 * 60 * 1000;

let clock: ManualClock;
let temp: TempVault;
let services: Services;
let a: TenantFixture;
let key: string;
let running: RunningServer | undefined;

beforeEach(async () => {
  clock = new ManualClock(new Date());
  temp = await createTestVault({ clock });
  services = createServices(temp.vault, { passwordKdf: FAST_KDF, tenancy: outboxTenancyOptions(temp.dir) });
  a = await createTenantFixture(services, 'Tenant A');
  const app = await privateKey(services, a.tenant.id, {
    permissions: TOKEN_PERMISSIONS,
    rules: [rule('/', ['token:read', 'token:search'], 'reveal')],
  });
  key = app.key;
});

afterEach(async () => {
  vi.useRealTimers();
  await running?.close();
  running = undefined;
  await temp.dispose();
});

async function start(options: Partial<StartServerOptions> = {}): Promise<RunningServer> {
  running = await startServer(temp.vault, {
    host: '127.0.0.1',
    port: 0,
    services,
    logger: captureLogs().logger,
    ...options,
  });
  return running;
}

function call(server: RunningServer, path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('SVC-API-KEY', key);
  if (init.body !== undefined && !headers.has('content-type'))
    headers.set('content-type', 'application/json');
  return fetch(`${server.url}${path}`, { ...init, headers });
}

async function tokenRowExists(id: string): Promise<boolean> {
  const row = await temp.vault.db
    .selectFrom('tokens')
    .select('id')
    .where('tenant_id', '=', a.tenant.id)
    .where('id', '=', id)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The sweeper's interval on fake timers moved by hand (only setInterval is faked: sockets and the
 * vault keep real timers), so every sweep after the first is one the test asked for.
 */
function fakeSweepTicks(): void {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
}

/** Moves the sweep interval on, one tick and one turn of the event loop at a time, until `condition` holds. */
async function tickUntil(intervalMs: number, condition: () => Promise<boolean>): Promise<void> {
  while (!(await condition())) {
    vi.advanceTimersByTime(intervalMs);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('tokens over a real listener', () => {
  it('creates, reads, patches, lists, tokenizes, searches and deletes', async () => {
    const server = await start({ sweepIntervalMs: false });
    const created = await call(server, '/tokens/', {
      method: 'POST',
      body: JSON.stringify({
        id: 'wire token',
        data: { pan: 'over the wire' },
        metadata: { channel: 'HTTP' },
      }),
    });
    expect(created.status).toBe(201);
    const location = created.headers.get('location');
    expect(location).toBe('/tokens/wire%20token');
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(((await created.json()) as TokenJson).id).toBe('wire token');

    const read = await call(server, location ?? '');
    expect(read.status).toBe(200);
    expect(((await read.json()) as TokenJson).data).toEqual({ pan: 'over the wire' });

    const wrongType = await call(server, location ?? '', {
      method: 'PATCH',
      body: JSON.stringify({ metadata: { step: 'two' } }),
    });
    expect(wrongType.status).toBe(415);
    expect(wrongType.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const patched = await call(server, location ?? '', {
      method: 'PATCH',
      headers: { 'content-type': MERGE_PATCH },
      body: JSON.stringify({ metadata: { step: 'two' } }),
    });
    expect(patched.status).toBe(200);
    expect(((await patched.json()) as TokenJson).metadata).toEqual({ channel: 'HTTP', step: 'two' });

    for (const query of ['metadata[channel]=http', 'metadata.step=TWO&metadata.channel=http']) {
      const listed = await call(server, `/tokens?${query}`);
      expect(listed.status).toBe(200);
      expect(
        ((await listed.json()) as TokenPageJson).data.map((t) => t.id),
        query,
      ).toEqual(['wire token']);
    }

    const tokenized = await call(server, '/tokenize', {
      method: 'POST',
      body: JSON.stringify(['one', 'two']),
    });
    expect(tokenized.status).toBe(200);
    const ids = (await tokenized.json()) as string[];
    expect(ids).toHaveLength(2);
    const searched = await call(server, '/tokens/search', {
      method: 'POST',
      body: JSON.stringify({ query: `id:"${ids[0]}" OR id:"${ids[1]}"` }),
    });
    const page = (await searched.json()) as TokenPageJson;
    expect(page.data.map((t) => t.data).sort()).toEqual(['one', 'two']);

    const deleted = await call(server, location ?? '', { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect((await call(server, location ?? '')).status).toBe(404);
  });

  it('sweeps expired tokens away in the background, with an audit record, and stops on close', async () => {
    fakeSweepTicks();
    const create = (id: string, expiresAt: Date) =>
      services.tokens.create(
        { kind: 'operator', tenantId: a.tenant.id },
        { id, data: `data of ${id}`, expires_at: expiresAt.toISOString() },
      );
    await create('expires-soon', new Date(clock.now().getTime() + HOUR));
    await create('expires-later', new Date(clock.now().getTime() + 10 * HOUR));
    const server = await start({ sweepIntervalMs: 25 });
    expect((await call(server, '/tokens/expires-soon')).status).toBe(200);

    clock.advance(2 * HOUR);
    // Unreadable at once, gone from the store after a sweep.
    expect((await call(server, '/tokens/expires-soon')).status).toBe(404);
    await tickUntil(25, async () => !(await tokenRowExists('expires-soon')));
    expect(await tokenRowExists('expires-later')).toBe(true);

    const logs = await fetch(`${server.url}/logs?entity_id=expires-soon`, {
      headers: { 'SVC-API-KEY': a.admin.key },
    });
    const entries = ((await logs.json()) as { data: Array<{ operation: string; message: string }> }).data;
    expect(entries).toContainEqual(
      expect.objectContaining({ operation: 'delete', message: TOKEN_MESSAGES.expired }),
    );

    // Close waits for a sweep in progress and clears the interval: no sweep can come after it.
    await server.close();
    expect(vi.getTimerCount()).toBe(0);
    clock.advance(20 * HOUR);
    vi.advanceTimersByTime(HOUR);
    // The later token is expired now, so no read shows it: its row is still there.
    expect(await tokenRowExists('expires-later')).toBe(true);
  });

  it('runs no sweeper when it is turned off', async () => {
    fakeSweepTicks();
    await services.tokens.create(
      { kind: 'operator', tenantId: a.tenant.id },
      { id: 'never-swept', data: 'x', expires_at: new Date(clock.now().getTime() + HOUR).toISOString() },
    );
    clock.advance(2 * HOUR);
    const server = await start({ sweepIntervalMs: 0, headroomIntervalMs: 0 });
    expect(vi.getTimerCount()).toBe(0);
    // Close would wait for a sweep started with the server (a sweeper sweeps at once): there was none.
    await server.close();
    expect(await tokenRowExists('never-swept')).toBe(true);
  });

  it('refuses a negative sweep interval', async () => {
    await expect(start({ sweepIntervalMs: -1 })).rejects.toThrow(/sweep interval/);
    await expect(start({ sweepIntervalMs: 1.5 })).rejects.toThrow(/sweep interval/);
  });
});
