import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { verifyAuditChains } from '../audit/audit-log.ts';
import { createServices } from '../services.ts';
import { GatedFs } from '../backends/embedded/test-support/gated-fs.ts';
import { PowerLossFs, seededRandom } from '../backends/embedded/test-support/power-loss-fs.ts';
import { vaultPaths } from '../backends/embedded/paths.ts';
import { operatorIn } from '../access/principal.ts';
import { codeOf } from '../test-support/services-fixture.ts';
import { FAST_KDF, createTempVault } from '../test-support/temp-vault.ts';
import { createVault, openVault } from '../vault/index.ts';
import type { KeySource } from '../crypto/root-key.ts';
import { UNAWAITED_ENTRY_DELAY_MS, readAuditOf } from './read-audit.ts';
import { countRows, openTokenFixture } from '../test-support/token-kit.ts';
import type { TokenFixture } from '../test-support/token-kit.ts';

const JOURNAL = 'vault.journal';
const MARK = 'vault.ack';

describe('reads recorded in group-committed batches', () => {
  let f: TokenFixture;
  beforeEach(async () => {
    f = await openTokenFixture();
  });
  afterEach(() => f.close());

  it('many parallel reads, detokenizations and writes leave one intact chain per tenant', async () => {
    const mine = await f.services.tokens.create(f.operator, {
      type: 'card_number',
      data: '4242424242424242',
    });
    const other = await f.services.tokens.create(operatorIn(f.otherTenantId), {
      type: 'token',
      data: 'other tenant',
    });
    const before = await countRows(f, 'audit_logs');
    const work: Promise<unknown>[] = [];
    let listed = 0;
    for (let i = 0; i < 60; i++) {
      work.push(f.services.tokens.get(f.app, mine.token.id));
      work.push(f.services.tokens.get(operatorIn(f.otherTenantId), other.token.id));
      work.push(
        f.services.detokenizer.detokenize(
          f.app,
          { n: `{{ ${mine.token.id} }}` },
          { permission: 'token:use' },
        ),
      );
      if (i % 10 === 0) work.push(f.services.tokens.create(f.app, { type: 'token', data: `w${i}` }));
      if (i % 15 === 0) {
        work.push(
          f.services.tokens.list(f.app, {}, { page: 1, size: 5 }).then((page) => {
            listed += page.items.length;
          }),
        );
      }
    }
    await Promise.all(work);

    const report = await verifyAuditChains(f.vault.db, f.vault);
    expect(report.ok, JSON.stringify(report.firstBreak)).toBe(true);
    // 60 reads and 60 uses of `mine`, 60 reads of `other`, 6 creations, one read per listed token.
    expect((await countRows(f, 'audit_logs')) - before).toBe(60 * 3 + 6 + listed);
    const seqs = await f.vault.db
      .selectFrom('audit_logs')
      .select(['tenant_id', 'seq'])
      .orderBy('tenant_id')
      .orderBy('seq')
      .execute();
    for (const tenant of [f.tenantId, f.otherTenantId]) {
      const own = seqs.filter((r) => r.tenant_id === tenant).map((r) => r.seq);
      expect(own).toEqual(own.map((_, i) => i + 1));
    }
  });

  it('a repeat read in the same month writes no activity row', async () => {
    const { token } = await f.services.tokens.create(f.operator, { type: 'token', data: 'x' });
    const activity = await countRows(f, 'token_activity');
    for (let i = 0; i < 5; i++) await f.services.tokens.get(f.app, token.id);
    await Promise.all([1, 2, 3].map(() => f.services.tokens.get(f.app, token.id)));
    expect(await countRows(f, 'token_activity')).toBe(activity);
    f.clock.advance(40 * 24 * 3600 * 1000);
    await f.services.tokens.get(f.app, token.id);
    expect(await countRows(f, 'token_activity')).toBe(activity + 1);
  });

  it('a read of a tenant deleted before its batch is written is refused, the others answered', async () => {
    const event = (tenantId: string) => ({
      principal: null,
      event: {
        tenantId,
        entityType: 'token',
        entityId: 't',
        operation: 'read' as const,
        message: 'Token read',
      },
    });
    await f.services.tenants.delete(operatorIn(f.otherTenantId));
    // A transaction holds the lock, so both records wait for, and land in, the same batch.
    let release!: () => void;
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const held = f.vault.transaction(
      () =>
        new Promise<void>((r) => {
          release = r;
          started();
        }),
    );
    await running;
    const reads = readAuditOf(f.vault);
    const gone = reads.record({
      entries: [event(f.otherTenantId)],
      activeTokens: { tenantId: f.otherTenantId, tokenIds: ['t'] },
    });
    const kept = reads.record({
      entries: [event(f.tenantId)],
      activeTokens: { tenantId: f.tenantId, tokenIds: ['t'] },
    });
    release();
    await held;
    expect(await codeOf(gone)).toBe('NOT_FOUND');
    expect(await codeOf(kept)).toBe('ok');
    expect((await verifyAuditChains(f.vault.db, f.vault)).ok).toBe(true);
  });
});

describe('entries nobody waits for', () => {
  let f: TokenFixture;
  beforeEach(async () => {
    f = await openTokenFixture();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(async () => {
    vi.useRealTimers();
    await f.close();
  });

  const invoked = (tenantId: string) => ({
    entries: [
      {
        principal: null,
        event: {
          tenantId,
          entityType: 'proxy',
          entityId: 'p',
          operation: 'invoke' as const,
          message: 'Proxy invoked',
        },
      },
    ],
  });
  const invocations = () =>
    f.vault.db.selectFrom('audit_logs').select('id').where('operation', '=', 'invoke').execute();
  /** Lets pending I/O callbacks and promise jobs run; no time passes on the faked timers. */
  const yieldTurns = async (turns = 20) => {
    for (let i = 0; i < turns; i++) await new Promise<void>((r) => setImmediate(r));
  };

  it('start no batch: they ride with the next batch a reader starts', async () => {
    const { token } = await f.services.tokens.create(f.operator, { type: 'token', data: 'x' });
    const reads = readAuditOf(f.vault);
    let written = false;
    const later = reads.recordLater(invoked(f.tenantId)).then(() => (written = true));
    await yieldTurns();
    expect(await invocations()).toHaveLength(0);
    await f.services.tokens.get(f.app, token.id);
    // Resolved in the read's batch, before the reader was answered.
    expect(written).toBe(true);
    await later;
    expect(await invocations()).toHaveLength(1);
    expect((await verifyAuditChains(f.vault.db, f.vault)).ok).toBe(true);
  });

  it(`are written on their own after ${UNAWAITED_ENTRY_DELAY_MS} ms, or at once by flush()`, async () => {
    const reads = readAuditOf(f.vault);
    const first = reads.recordLater(invoked(f.tenantId));
    await yieldTurns();
    expect(await invocations()).toHaveLength(0);
    vi.advanceTimersByTime(UNAWAITED_ENTRY_DELAY_MS);
    await first;
    expect(await invocations()).toHaveLength(1);

    const second = reads.recordLater(invoked(f.tenantId));
    await reads.flush();
    await second;
    expect(await invocations()).toHaveLength(2);
  });

  it('of a deleted tenant are refused without failing the batch they joined', async () => {
    const { token } = await f.services.tokens.create(f.operator, { type: 'token', data: 'x' });
    await f.services.tenants.delete(operatorIn(f.otherTenantId));
    const reads = readAuditOf(f.vault);
    const gone = reads.recordLater(invoked(f.otherTenantId));
    await f.services.tokens.get(f.app, token.id);
    expect(await codeOf(gone)).toBe('NOT_FOUND');
    expect(await invocations()).toHaveLength(0);
  });
});

describe('reads under power loss', () => {
  it('every answered read has its audit entry after a crash', async () => {
    const rng = seededRandom(Number(process.env.POWER_LOSS_SEED ?? 4242));
    const key: KeySource = { kind: 'key', key: new Uint8Array(randomBytes(32)) };
    const path = '/machine/vault.svc';
    let machine = new PowerLossFs(rng, true);
    const vault = await createVault({ path, key, fs: machine });
    const services = createServices(vault, { passwordKdf: FAST_KDF });
    const { tenant } = await services.tenants.create({ name: 'Acme', withApplication: false }, null);
    const operator = operatorIn(tenant.id);
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) {
      ids.push((await services.tokens.create(operator, { type: 'token', data: `d${i}` })).token.id);
    }
    const answered: string[] = [];
    machine.crashAfter(25 + Math.floor(rng() * 40));
    await Promise.all(
      ids.map(async (id) => {
        try {
          await services.tokens.get(operator, id);
          answered.push(id);
        } catch {
          // lost with the power
        }
      }),
    );
    await vault.close({ snapshot: false }).catch(() => undefined);
    machine = machine.reboot(rng, false);
    await machine.unlink(vaultPaths(path).lock).catch(() => undefined);
    const reopened = await openVault({ path, key, fs: machine });
    try {
      const audited = new Set(
        (
          await reopened.db
            .selectFrom('audit_logs')
            .select('entity_id')
            .where('operation', '=', 'read')
            .execute()
        ).map((r) => r.entity_id),
      );
      expect(answered.length).toBeGreaterThan(0);
      expect(answered.filter((id) => !audited.has(id))).toEqual([]);
      expect((await verifyAuditChains(reopened.db, reopened)).ok).toBe(true);
    } finally {
      await reopened.close({ snapshot: false });
    }
  }, 120_000);
});

describe('batches pipelined over the durable writes', () => {
  it('a read arriving while a batch is written has its own record written while that batch is acknowledged', async () => {
    const gate = new GatedFs();
    const temp = await createTempVault({ fs: gate.fs });
    try {
      const services = createServices(temp.vault, { passwordKdf: FAST_KDF });
      const { tenant } = await services.tenants.create({ name: 'Acme', withApplication: false }, null);
      const operator = operatorIn(tenant.id);
      const { token } = await services.tokens.create(operator, { type: 'token', data: 'x' });
      const commits = temp.vault.sequence;
      gate.hold(JOURNAL, MARK);
      const answered: string[] = [];
      const read = (who: string) => services.tokens.get(operator, token.id).then(() => answered.push(who));

      // Batch 1 (A) writes its journal record; B arrives meanwhile and waits.
      const a = read('a');
      await gate.until(JOURNAL, 1);
      const b = read('b');
      gate.release(JOURNAL);
      // Batch 1's record is durable and its mark is being written: batch 2 (B) has already run its
      // transaction and is writing its record. Serially, batch 2 would start only after A's answer.
      await gate.until(MARK, 1);
      await gate.until(JOURNAL, 1);
      expect(temp.vault.sequence - commits).toBe(2);
      expect(answered).toEqual([]);

      gate.release(MARK);
      await a;
      expect(answered).toEqual(['a']);
      // B is answered only once its own record and the mark covering it are written.
      gate.release(JOURNAL);
      await gate.until(MARK, 1);
      expect(answered).toEqual(['a']);
      gate.release(MARK);
      await b;
      expect(answered).toEqual(['a', 'b']);
      expect(temp.vault.sequence - commits).toBe(2);
      expect((await verifyAuditChains(temp.vault.db, temp.vault)).ok).toBe(true);
    } finally {
      await temp.dispose();
    }
  });
});
