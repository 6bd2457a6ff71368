import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApplicationWithKey, LogEntry, Services, Tenant } from '../../../core/services-contract.ts';
import { run } from '../../main.ts';
import { actorOf, entityIdOf, operationOf } from './logs.ts';
import { expectOk, expectOneLineError, withHomeVault, listData } from '../../test-support/expect.ts';
import { fastServices, makeTestIo, runSvc, type TempHome } from '../../test-support/harness.ts';
import {
  appCreate,
  createdTenant,
  INIT,
  preparedHome,
  tenantCreate,
} from '../../test-support/tenant-home.ts';
import { operatorIn } from '../../tenancy/tenant-scope.ts';
import { appendAudit } from '../../../core/audit/audit-log.ts';
import { alterAuditEntry } from '../../../core/test-support/audit-tamper.ts';

/** `svc logs` and `svc logs verify` against a real vault whose tenant has a few audited actions. */

let home: TempHome;
let tenant: Tenant;
let app: ApplicationWithKey;

const svc = (...args: string[]) => runSvc(args, { env: home.env() });

beforeEach(async () => {
  const prepared = await preparedHome([
    INIT,
    tenantCreate('Acme', 'owner@example.com'),
    appCreate('Backend', 'private', 'token:read'),
  ]);
  home = prepared.home;
  tenant = createdTenant(prepared.outputs[1] ?? '');
  app = JSON.parse(prepared.outputs[2] ?? '') as ApplicationWithKey;
  expectOk(await svc('app', 'update', app.id, '--name', 'Renamed'));
});
afterEach(() => home.cleanup());

function entries(stdout: string): LogEntry[] {
  return listData<LogEntry>(stdout);
}

describe('svc logs', () => {
  it('lists newest first, as JSON or tab-separated lines, never with keys', async () => {
    const result = await svc('logs', '--json');
    expectOk(result);
    const all = entries(result.stdout);
    expect(all.length).toBeGreaterThanOrEqual(3);
    expect(all.every((e) => e.tenant_id === tenant.id)).toBe(true);
    const times = all.map((e) => e.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    // The newest entry about the application is the update the last command made.
    const ofApp = all.filter((e) => e.entity_id === app.id);
    expect(ofApp[0]).toMatchObject({
      entity_type: 'application',
      operation: 'update',
      actor_type: 'operator',
    });
    expect(ofApp[ofApp.length - 1]).toMatchObject({ operation: 'create', actor_type: 'operator' });
    expect(result.stdout).not.toContain(app.key);

    const table = await svc('logs', '--entity-id', app.id);
    expectOk(table);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(ofApp.length);
    const newest = ofApp[0] as LogEntry;
    expect(lines[0]).toBe(
      [newest.created_at, 'update', 'application', app.id, 'operator', newest.message].join('\t'),
    );
  });

  it('filters by entity, time and count', async () => {
    const all = entries((await svc('logs', '--json')).stdout);
    const byApp = entries(
      (await svc('logs', '--entity-type', 'application', '--entity-id', app.id, '--json')).stdout,
    );
    expect(byApp.every((e) => e.entity_type === 'application' && e.entity_id === app.id)).toBe(true);
    expect(byApp[0]?.operation).toBe('update');
    expect(byApp[byApp.length - 1]?.operation).toBe('create');
    const tenantOnly = entries((await svc('logs', '--entity-type', 'tenant', '--json')).stdout);
    expect(tenantOnly.every((e) => e.entity_type === 'tenant')).toBe(true);

    expect(entries((await svc('logs', '--since', '2999-01-01', '--json')).stdout)).toEqual([]);
    expect(entries((await svc('logs', '--until', '2000-01-01T00:00:00Z', '--json')).stdout)).toEqual([]);
    const oldest = all[all.length - 1] as LogEntry;
    const since = entries((await svc('logs', '--since', oldest.created_at, '--json')).stdout);
    expect(since.map((e) => e.id)).toEqual(expect.arrayContaining(all.map((e) => e.id)));
    const until = entries((await svc('logs', '--until', oldest.created_at, '--json')).stdout);
    expect(until.map((e) => e.id)).not.toContain(oldest.id);

    const limited = await svc('logs', '--limit', '1');
    expectOk(limited);
    expect(limited.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(limited.stderr).toMatch(/^Showing the newest 1 of \d+ entries; --limit shows more\.\n$/);
    expect(entries((await svc('logs', '--limit', '2', '--json')).stdout)).toHaveLength(2);

    const none = await svc('logs', '--entity-id', 'nothing-here');
    expectOk(none);
    expect(none.stdout).toBe('');
    expect(none.stderr).toBe('No log entries match.\n');
  });

  it('filters by actor, actor type and operation; the table names the actor', async () => {
    const all = entries((await svc('logs', '--json', '--limit', '1000')).stdout);
    expect(all.every((e) => e.actor_type !== 'operator' || e.actor_name === 'operator')).toBe(true);
    const creates = entries((await svc('logs', '--operation', 'create', '--json')).stdout);
    expect(creates.map((e) => e.id)).toEqual(all.filter((e) => e.operation === 'create').map((e) => e.id));
    const byOperator = entries((await svc('logs', '--actor-type', 'operator', '--json')).stdout);
    expect(byOperator.length).toBeGreaterThan(0);
    expect(byOperator.every((e) => e.actor_type === 'operator')).toBe(true);

    // An application that acts is named by its name, and found by its id.
    const reader = JSON.parse(
      (await svc(...appCreate('Reader', 'management', 'application:read').args)).stdout,
    ) as ApplicationWithKey;
    await withHomeVault(home, async (_vault, services) => {
      const principal = await services.auth.authenticateApiKey(reader.key);
      if (!principal) throw new Error('no principal');
      await services.applications.get(principal, app.id);
    });
    const byReader = await svc('logs', '--actor', reader.id);
    expectOk(byReader);
    const fields = byReader.stdout.trimEnd().split('\t');
    expect(fields.slice(1)).toEqual([
      'read',
      'application',
      app.id,
      'application Reader',
      'Application read',
    ]);
    const json = JSON.parse((await svc('logs', '--actor', reader.id, '--json')).stdout) as {
      data: LogEntry[];
    };
    expect(json.data).toEqual([expect.objectContaining({ actor_id: reader.id, actor_name: 'Reader' })]);
  });

  it('bad dates and limits are usage errors', async () => {
    expectOneLineError(await svc('logs', '--since', 'last tuesday'), 2, /ISO 8601.*24h, 7d.*yesterday/);
    expectOneLineError(await svc('logs', '--until', '2025-13-45'), 2, /ISO 8601/);
    // Relative times are no usage error.
    for (const since of ['24h', '7d', 'yesterday']) expectOk(await svc('logs', '--since', since));
    expectOneLineError(await svc('logs', '--limit', '0'), 2, /between 1 and 10000/);
    // The valid values, and the nearest one to a near miss.
    expectOneLineError(
      await svc('logs', '--operation', 'reed'),
      2,
      /create, read, update, delete, use, invoke\. Did you mean read\?/,
    );
    expectOneLineError(await svc('logs', '--actor-type', 'aplication'), 2, /Did you mean application\?/);
    expectOneLineError(
      await svc('logs', '--actor-type', 'robot'),
      2,
      /Allowed choices are application, user, operator\.\n$/,
    );
  });

  it('picks the tenant like the other commands: --tenant is needed with two', async () => {
    const beta = await svc('tenant', 'create', '--name', 'Beta', '--owner-email', 'b@example.com', '--json');
    const betaId = (JSON.parse(beta.stdout) as { tenant: Tenant }).tenant.id;
    expectOneLineError(await svc('logs'), 2, /pass --tenant/);
    const betaLogs = entries((await svc('logs', '--tenant', betaId, '--json')).stdout);
    expect(betaLogs.length).toBeGreaterThan(0);
    expect(betaLogs.every((e) => e.tenant_id === betaId)).toBe(true);
  });

  it('a vault held by another opener → exit 4 naming the holder', async () => {
    await withHomeVault(home, async () => {
      const held = await svc('logs');
      expectOneLineError(held, 4, /held by/);
      expect(held.stderr).toContain(`process ${process.pid}`);
    });
  });

  it('--follow prints what is written while it runs, oldest first, until stopped', async () => {
    let services: Services | undefined;
    let sleeping: () => void = () => undefined;
    let nap = new Promise<void>((resolve) => (sleeping = resolve));
    let wake: () => void = () => undefined;
    const io = makeTestIo({
      env: home.env(),
      services: async (vault) => (services = await fastServices(vault)),
      // The test decides when the loop looks again: each "second" lasts until wake().
      sleep: (_ms, signal) =>
        new Promise<void>((resolve) => {
          wake = resolve;
          signal?.addEventListener('abort', () => resolve(), { once: true });
          sleeping();
        }),
    });
    const exit = run(['logs', '--follow', '--json'], io.deps);
    await nap;
    const initial = io
      .stdout()
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as LogEntry);
    expect(initial.find((e) => e.entity_id === app.id)).toMatchObject({ operation: 'update' });

    // Two writes through the command's own vault handle, then one look.
    const principal = operatorIn(tenant.id);
    const first = await services?.applications.create(principal, {
      name: 'First',
      type: 'public',
      permissions: ['token:create'],
    });
    const second = await services?.applications.create(principal, {
      name: 'Second',
      type: 'public',
      permissions: ['token:create'],
    });
    nap = new Promise<void>((resolve) => (sleeping = resolve));
    wake();
    await nap;
    const streamed = io
      .stdout()
      .trimEnd()
      .split('\n')
      .slice(initial.length)
      .map((line) => JSON.parse(line) as LogEntry);
    expect(streamed.filter((e) => e.operation === 'create').map((e) => e.entity_id)).toEqual([
      first?.id,
      second?.id,
    ]);
    expect(io.stdout()).not.toContain((first as ApplicationWithKey).key);

    // Nothing new: nothing printed.
    const before = io.stdout();
    nap = new Promise<void>((resolve) => (sleeping = resolve));
    wake();
    await nap;
    expect(io.stdout()).toBe(before);

    io.shutdown();
    expect(await exit).toBe(0);
    // The vault was closed (lock released): the next command opens it.
    expectOk(await svc('logs', '--limit', '1'));
  });
});

describe('svc logs verify', () => {
  it('passes on an intact log and names the altered entry after tampering', async () => {
    // Listing the log reads the tenant (an audited read), so count first, then verify.
    const count = entries((await svc('logs', '--json', '--limit', '10000')).stdout).length;
    const ok = await svc('logs', 'verify');
    expectOk(ok);
    expect(ok.stdout).toBe(`ok: ${count} entries in 1 tenant verified\n`);
    const okJson = await svc('logs', 'verify', '--tenant', tenant.id, '--json');
    expectOk(okJson);
    expect(JSON.parse(okJson.stdout)).toEqual({ ok: true, tenants: 1, entries: count, first_break: null });
    // By name as well as by id; a name that names no tenant is an error naming the tenants there are.
    // (Finding the tenant by name reads it: one more audited entry.)
    expect(JSON.parse((await svc('logs', 'verify', '--tenant', 'acme', '--json')).stdout)).toMatchObject({
      ok: true,
      tenants: 1,
      first_break: null,
    });
    expectOneLineError(await svc('logs', 'verify', '--tenant', 'nope'), 1, /no tenant nope in this vault/);
    expectOneLineError(
      await svc('logs', 'verify', '--tenant', '00000000-0000-4000-8000-000000000000'),
      1,
      /no audit log for tenant 00000000-0000-4000-8000-000000000000/,
    );

    const target = await withHomeVault(home, async (vault) => {
      // Wherever the vault keeps the entry: the table, or (after a close) a segment file.
      let row: { id: string; seq: number } | undefined;
      for await (const e of vault.audit.entries(tenant.id)) {
        if (e.entity_id === app.id && e.operation === 'create') row = { id: e.id, seq: e.seq };
      }
      if (!row) throw new Error('no create entry for the application');
      await alterAuditEntry(vault, row.id, { message: 'nothing to see here' });
      return row;
    });

    const broken = await svc('logs', 'verify');
    expect(broken.code).toBe(1);
    expect(broken.stdout).toBe(
      `broken: tenant ${tenant.id}, entry #${target.seq} (${target.id}): its contents were altered\n`,
    );
    expect(broken.stderr).toBe('');
    const brokenJson = await svc('logs', 'verify', '--json');
    expect(brokenJson.code).toBe(1);
    expect(JSON.parse(brokenJson.stdout)).toMatchObject({
      ok: false,
      first_break: { tenant_id: tenant.id, seq: target.seq, entry_id: target.id },
    });
  });
});

describe('svc logs prune', () => {
  it('removes old read entries behind a checkpoint; verify still passes', async () => {
    // Five reads from long ago, then a change now: appended with an old clock, chained like any entry.
    await withHomeVault(home, (vault) =>
      vault.transaction(async (trx) => {
        const long_ago = {
          keyedHash: vault.keyedHash.bind(vault),
          clock: { now: () => new Date('2020-01-01') },
        };
        for (let i = 0; i < 5; i++)
          await appendAudit(trx, long_ago, null, {
            tenantId: tenant.id,
            entityType: 'application',
            entityId: app.id,
            operation: 'read',
            message: 'Application read',
          });
        await appendAudit(trx, vault, null, {
          tenantId: tenant.id,
          entityType: 'application',
          entityId: app.id,
          operation: 'update',
          message: 'Application updated',
        });
      }),
    );
    // It removes entries for good: a script must say --yes.
    expectOneLineError(
      await svc('logs', 'prune', '--older-than', '30'),
      2,
      /pruning the audit log needs confirmation; pass --yes/,
    );
    const pruned = await svc('logs', 'prune', '--older-than', '30', '--tenant', 'Acme', '--yes');
    expectOk(pruned);
    expect(pruned.stdout).toBe('removed 5 read entries; 1 checkpoint written\n');
    expectOk(await svc('logs', 'verify'));
    expect(JSON.parse((await svc('logs', 'prune', '--older-than', '30', '--yes', '--json')).stdout)).toEqual({
      entries: 0,
      checkpoints: 0,
    });
    expect((await svc('logs', 'prune')).code).toBe(2);
    expect((await svc('logs', 'prune', '--older-than', '0')).code).toBe(2);
  });
});

describe('actors', () => {
  const entry = {
    id: 'e1',
    tenant_id: 't1',
    entity_type: 'token',
    entity_id: 'tok',
    operation: 'read',
    message: 'Token read',
    created_at: '2025-01-01T00:00:00.000Z',
  } as const;

  it('are shown by name when the log names them, else by type and id', () => {
    expect(actorOf({ ...entry, actor_type: 'application', actor_id: 'a1', actor_name: 'Shop' })).toBe(
      'application Shop',
    );
    expect(actorOf({ ...entry, actor_type: 'user', actor_id: 'u1', actor_name: 'ada@example.com' })).toBe(
      'user ada@example.com',
    );
    expect(actorOf({ ...entry, actor_type: 'operator', actor_id: null, actor_name: 'operator' })).toBe(
      'operator',
    );
    // A deleted actor (null name) or a server that sends no names: type and id.
    expect(actorOf({ ...entry, actor_type: 'application', actor_id: 'a1', actor_name: null })).toBe(
      'application a1',
    );
    expect(actorOf({ ...entry, actor_type: null, actor_id: null, actor_name: null })).toBe('-');
  });
});

describe('reads', () => {
  it('say whether the data was seen masked or revealed, and how many ids one entry stands for', () => {
    expect(operationOf({ operation: 'read', revealed: false })).toBe('read (masked)');
    expect(operationOf({ operation: 'use', revealed: true })).toBe('use (revealed)');
    expect(operationOf({ operation: 'update', revealed: null })).toBe('update');
    expect(entityIdOf({ entity_id: 'list', entity_ids: ['a', 'b'] })).toBe('list (2 ids)');
    expect(entityIdOf({ entity_id: 'search', entity_ids: ['a'] })).toBe('search (1 id)');
    expect(entityIdOf({ entity_id: 'tok', entity_ids: null })).toBe('tok');
  });
});
