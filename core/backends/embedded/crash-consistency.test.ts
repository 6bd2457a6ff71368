import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onLines } from '../../test-support/child-lines.ts';
import { compileScript, type CompiledScript } from '../../test-support/compiled-script.ts';
import { makeTempDir } from '../../test-support/temp-vault.ts';
import { seededRandom } from './test-support/power-loss-fs.ts';
import type { TempDir } from '../../test-support/temp-vault.ts';
import { createVault, openVault } from '../../vault/index.ts';

const ROUNDS = 30;
/** Each kill falls within this long after the writer reports the vault open. */
const KILL_WINDOW_MS = 250;

/**
 * The kill delays come from a seeded generator: the seed is printed, and `CRASH_SEED=<seed>` replays
 * the same delays. (The writer's own progress still depends on scheduling, so a replay reproduces
 * the timings asked for, not every byte written.)
 */
const SEED = process.env.CRASH_SEED === undefined ? randomInt(2 ** 31) : Number(process.env.CRASH_SEED);

/**
 * One kill delay from each of ROUNDS equal slices of the window, at a random point of its slice, in
 * a random order: the kills spread over the whole of the writer's first KILL_WINDOW_MS (its first
 * commits, the commits that follow, the background snapshots the small threshold starts) with no
 * gap wider than two slices, which as many independent draws do not promise, and a long round is
 * as likely to come early as late.
 */
function killDelays(random: () => number): number[] {
  const delays = Array.from({ length: ROUNDS }, (_, slice) =>
    Math.floor(((slice + random()) * KILL_WINDOW_MS) / ROUNDS),
  );
  for (let i = delays.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [delays[i], delays[j]] = [delays[j]!, delays[i]!];
  }
  return delays;
}

const writerSource = new URL('./test-support/crash-writer.ts', import.meta.url);
let writer: CompiledScript;

interface RoundResult {
  acknowledged: string[];
}

/** A writer process loading its modules, not yet told to open the vault. */
interface PendingWriter {
  /**
   * Lets the writer open the vault and SIGKILLs it `delayMs` after it reports the vault open;
   * resolves with what it acknowledged.
   */
  run(delayMs: number): Promise<RoundResult>;
  /** Ends the process if it still runs (a round that failed leaves the next one waiting). */
  kill(): void;
}

/**
 * Starts the writer of `round`. It loads its modules, then waits for `run` before it opens the
 * vault: the next round's writer starts while this round's runs and is checked, so no round waits
 * for a process start, and every kill still falls a chosen delay after the vault is open.
 */
function startWriter(tmp: TempDir, round: number): PendingWriter {
  const key = tmp.key.kind === 'key' ? Buffer.from(tmp.key.key).toString('base64') : '';
  const child = spawn(process.execPath, writer.args, {
    env: {
      ...process.env,
      CRASH_VAULT_PATH: tmp.vaultPath,
      CRASH_VAULT_KEY: key,
      CRASH_ROUND: String(round),
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let delayMs = 0;
  const result = new Promise<RoundResult>((resolve, reject) => {
    const acknowledged: string[] = [];
    let stderr = '';
    let timer: NodeJS.Timeout | undefined;
    onLines(child.stdout, (line) => {
      if (line === 'ready') {
        timer = setTimeout(() => child.kill('SIGKILL'), delayMs);
      } else if (line) {
        acknowledged.push(line);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (signal !== 'SIGKILL') reject(new Error(`writer exited on its own (${code}): ${stderr}`));
      else resolve({ acknowledged });
    });
  });
  // A writer that fails while it waits is reported by the `run` that awaits it.
  result.catch(() => undefined);
  return {
    run(delay) {
      delayMs = delay;
      child.stdin.end('open\n');
      return result;
    },
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

describe('crash consistency', () => {
  let tmp: TempDir;
  beforeAll(async () => {
    // Compiled once, packages and all: thirty rounds of the TypeScript loader's start, or of
    // loading each package's modules, would be most of the test.
    writer = await compileScript(writerSource, {
      bundlePackages: true,
      // Each of the thirty writers would parse and compile the same megabyte of bundle: V8 compiles
      // it once here, and every writer starts from that code.
      codeCache: true,
      // Baseline wasm code only: optimizing sql.js's and libsodium's wasm in the background cost
      // ≈ 0.18 s of CPU in each short-lived writer, more than its whole open. The SQL and the files
      // written are the same; only how fast the wasm runs differs.
      nodeOptions: ['--liftoff-only'],
    });
    tmp = await makeTempDir();
    const vault = await createVault({ path: tmp.vaultPath, key: tmp.key });
    await vault.close();
  });
  afterAll(async () => {
    await writer.remove();
    await tmp.cleanup();
  });

  it(`keeps every acknowledged commit across ${ROUNDS} SIGKILLs at random moments`, async () => {
    console.log(`crash consistency: CRASH_SEED=${SEED} replays these kill delays`);
    const delays = killDelays(seededRandom(SEED));
    const everAcknowledged = new Set<string>();
    let totalAcked = 0;
    let next = startWriter(tmp, 0);
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const delayMs = delays[round]!;
        const running = next.run(delayMs);
        if (round + 1 < ROUNDS) next = startWriter(tmp, round + 1);
        const { acknowledged } = await running;
        for (const k of acknowledged) everAcknowledged.add(k);
        totalAcked += acknowledged.length;

        const vault = await openVault({ path: tmp.vaultPath, key: tmp.key });
        try {
          const rows = await vault.db.selectFrom('vault_meta').select('key').execute();
          const present = new Set(rows.map((r) => r.key));
          const missing = [...everAcknowledged].filter((k) => !present.has(k));
          expect(
            missing,
            `round ${round} (CRASH_SEED=${SEED}, killed ${delayMs} ms after ready): acknowledged commits lost`,
          ).toEqual([]);
          const check = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(vault.db);
          expect(check.rows[0]?.integrity_check, `round ${round} (CRASH_SEED=${SEED})`).toBe('ok');
          // Each commit inserted its row and moved `last` in the same transaction: never half of it.
          const last = await vault.db
            .selectFrom('vault_meta')
            .select('value')
            .where('key', '=', 'last')
            .executeTakeFirst();
          if (last && last.value)
            expect(present.has(last.value), `round ${round} (CRASH_SEED=${SEED})`).toBe(true);
        } finally {
          // The close snapshots, so later rounds also crash in the middle of replaying a compacted vault.
          await vault.close();
        }
      }
    } finally {
      next.kill();
    }
    expect(totalAcked).toBeGreaterThan(ROUNDS);
  }, 300_000);
});
