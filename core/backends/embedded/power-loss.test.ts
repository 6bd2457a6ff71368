import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { isVaultError } from '../../errors/catalogue.ts';
import { createVault, openVault } from '../../vault/index.ts';
import { rotateKeys } from '../../vault/rotation.ts';
import type { VaultHandle } from '../../vault/types.ts';
import type { KeySource } from '../../crypto/root-key.ts';
import { vaultPaths } from './paths.ts';
import { PowerLossFs, seededRandom } from './test-support/power-loss-fs.ts';

/**
 * The acknowledged-writes check run through a file layer that simulates power loss: only what was
 * fsynced (file data) and directory-fsynced (names) survives, plus — outside strict trials — a
 * random in-order prefix of what was not. Every commit a writer saw acknowledged must be there
 * after the reboot, and the vault must open. Covers group commit (four concurrent writers), the
 * journal-failure path (a full disk makes the vault fail; nothing is acknowledged after that), and
 * snapshots (a small threshold makes crashes land inside background snapshots: the journal
 * segment's rotation, the vault file's write, rename and directory fsync while writers commit into
 * the new segment, and the deletion of the previous segment), and key rotations running alongside.
 */
const TRIALS = 60;
const WRITERS = 4;
const VAULT = '/machine/vault.svc';

interface TrialResult {
  readonly acknowledged: string[];
  readonly failures: unknown[];
}

async function runUntilPowerLoss(vault: VaultHandle, trial: number): Promise<TrialResult> {
  const acknowledged: string[] = [];
  const failures: unknown[] = [];
  const writer = async (lane: number): Promise<void> => {
    for (let i = 0; ; i++) {
      const name = `t${trial}-w${lane}-${i}`;
      try {
        await vault.transaction(async (trx) => {
          await trx
            .insertInto('vault_meta')
            .values({ key: name, value: 'x'.repeat(40) })
            .execute();
          await trx.updateTable('vault_meta').set({ value: name }).where('key', '=', 'last').execute();
        });
      } catch (err) {
        failures.push(err);
        return;
      }
      acknowledged.push(name);
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, (_, lane) => writer(lane)));
  return { acknowledged, failures };
}

async function reopen(machine: PowerLossFs, key: KeySource): Promise<VaultHandle> {
  // The crashed holder was this very process, which is alive: its lock is removed as a reboot would.
  await machine.unlink(vaultPaths(VAULT).lock).catch(() => undefined);
  return openVault({ path: VAULT, key, fs: machine, snapshotThresholdBytes: 3000 });
}

describe('power loss', () => {
  it(`keeps every acknowledged commit across ${TRIALS} simulated power losses`, async () => {
    const seed = Number(process.env.POWER_LOSS_SEED ?? Date.now() % 1_000_000);
    const rng = seededRandom(seed);
    const key: KeySource = { kind: 'key', key: new Uint8Array(randomBytes(32)) };
    let machine = new PowerLossFs(rng, true);
    const created = await createVault({ path: VAULT, key, fs: machine });
    await created.transaction(async (trx) => {
      await trx.insertInto('vault_meta').values({ key: 'last', value: '' }).execute();
    });
    await created.close();

    const everAcknowledged = new Set<string>();
    let failedTrials = 0;
    // Reboots that found a previous journal segment: the crash came inside a background snapshot
    // (or after one whose deletion of the segment was not yet durable).
    let insideBackgroundSnapshot = 0;
    let keyTerm = 1;
    for (let trial = 0; trial < TRIALS; trial++) {
      const context = `seed ${seed}, trial ${trial}`;
      const strict = rng() < 0.5;
      machine = machine.reboot(rng, strict);
      const vault = await reopen(machine, key);
      const diskFills = trial % 4 === 3;
      let diskFilled = false;
      if (diskFills) {
        // The disk fills up at some journal write: the vault fails and acknowledges nothing more.
        let writes = 0;
        const fullAfter = 1 + Math.floor(rng() * 30);
        machine.injectFault((op, path) => {
          if (op !== 'write' || path !== vaultPaths(VAULT).journal || ++writes <= fullAfter) return null;
          diskFilled = true;
          return 'ENOSPC';
        });
      }
      machine.crashAfter(20 + Math.floor(rng() * 600));
      // Every fifth trial also rotates the keys while the writers run: the keyring changes in the
      // snapshot header, so a crash must never leave a journal under a term the keyring forgot.
      const rotation = trial % 5 === 1 ? rotateKeys(vault, key).catch(() => undefined) : undefined;
      const { acknowledged, failures } = await runUntilPowerLoss(vault, trial);
      await rotation;
      await vault.close({ snapshot: false }).catch(() => undefined);
      machine.crash();
      for (const k of acknowledged) everAcknowledged.add(k);
      if (diskFilled) {
        failedTrials++;
        expect(failures.length, context).toBe(WRITERS);
        for (const failure of failures) {
          expect(isVaultError(failure, 'VAULT_FAILED'), `${context}: ${String(failure)}`).toBe(true);
          expect((failure as Error).message, context).toContain('disk is full (ENOSPC)');
        }
      }

      machine = machine.reboot(rng, strict);
      if (
        await machine.stat(vaultPaths(VAULT).previousJournal).then(
          () => true,
          () => false,
        )
      )
        insideBackgroundSnapshot++;
      const check = await reopen(machine, key).catch((err: unknown) => {
        throw new Error(`${context}: the vault did not reopen: ${String(err)}`);
      });
      try {
        const present = new Set(
          (await check.db.selectFrom('vault_meta').select('key').execute()).map((r) => r.key),
        );
        const missing = [...everAcknowledged].filter((k) => !present.has(k));
        expect(missing, `${context}: acknowledged commits lost`).toEqual([]);
        const integrity = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(check.db);
        expect(integrity.rows[0]?.integrity_check, context).toBe('ok');
        // Each commit inserted its row and moved `last` in one transaction: never half of it.
        const last = await check.db
          .selectFrom('vault_meta')
          .select('value')
          .where('key', '=', 'last')
          .executeTakeFirst();
        if (last?.value) expect(present.has(last.value), context).toBe(true);
        keyTerm = check.keyTerm;
      } finally {
        // A clean close snapshots, so later trials also crash in vaults that were compacted.
        await check.close();
      }
    }
    expect(everAcknowledged.size).toBeGreaterThan(TRIALS);
    expect(failedTrials).toBeGreaterThan(0);
    expect(insideBackgroundSnapshot, 'no crash found a previous journal segment').toBeGreaterThan(0);
    expect(keyTerm, 'no rotation got as far as a new term').toBeGreaterThan(1);
  }, 300_000);
});
