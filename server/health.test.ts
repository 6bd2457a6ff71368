import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from './test-support/test-server.ts';

let server: TestServer;

beforeEach(async () => {
  server = await createTestServer();
});

afterEach(async () => {
  await server.dispose();
});

describe('GET /healthz', () => {
  it('answers ok with the vault id and commit counter, without authentication', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const status = await server.temp.vault.status();
    expect(response.json()).toEqual({
      status: 'ok',
      vault: { id: server.temp.vault.id, sequence: status.snapshotSequence + status.journalRecords },
    });
  });

  it('shows the counter moving after a commit', async () => {
    const before = (await server.app.inject({ method: 'GET', url: '/healthz' })).json() as {
      vault: { sequence: number };
    };
    await server.temp.vault.transaction(async (trx) => {
      await trx.insertInto('vault_meta').values({ key: 'health-test', value: '1' }).execute();
    });
    const after = (await server.app.inject({ method: 'GET', url: '/healthz' })).json() as {
      vault: { sequence: number };
    };
    expect(after.vault.sequence).toBe(before.vault.sequence + 1);
  });
});
