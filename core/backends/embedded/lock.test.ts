import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isVaultError } from '../../errors/catalogue.ts';
import { compileScript, type CompiledScript } from '../../test-support/compiled-script.ts';
import { deadPid } from '../../test-support/dead-pid.ts';
import { makeTempDir } from '../../test-support/temp-vault.ts';
import type { TempDir } from '../../test-support/temp-vault.ts';
import { onLines } from '../../test-support/child-lines.ts';
import { acquireLock, readLockHolder } from './lock.ts';
import { faultyFs } from './test-support/faulty-fs.ts';

const RACERS = 6;
const TRIALS = 40;
/** Compiled once: forty trials of six racers would otherwise start the TypeScript loader 240 times. */
let racer: CompiledScript;

/** A child process that takes and releases the lock on command, answering one line per command. */
class Racer {
  private readonly replies: string[] = [];
  private readonly waiting: Array<(line: string) => void> = [];

  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    onLines(child.stdout, (line) => {
      const waiter = this.waiting.shift();
      if (waiter) waiter(line);
      else this.replies.push(line);
    });
  }

  static start(): Racer {
    return new Racer(spawn(process.execPath, [racer.path], { stdio: 'pipe' }));
  }

  next(): Promise<string> {
    const ready = this.replies.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  send(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  stop(): void {
    this.child.stdin.end();
  }
}

async function writeStaleLock(path: string): Promise<void> {
  const stale = { pid: deadPid(), host: hostname(), startedAt: new Date(0).toISOString(), nonce: 'stale' };
  await writeFile(path, JSON.stringify(stale));
}

describe('vault lock', () => {
  let tmp: TempDir;
  beforeAll(async () => {
    racer = await compileScript(new URL('./test-support/lock-racer.ts', import.meta.url));
    tmp = await makeTempDir();
  });
  afterAll(async () => {
    await racer.remove();
    await tmp.cleanup();
  });

  it('refuses a second taker while the holder lives, naming it', async () => {
    const path = join(tmp.dir, 'live.lock');
    const lock = await acquireLock(path, new Date());
    const err = await acquireLock(path, new Date()).catch((e: unknown) => e);
    expect(isVaultError(err, 'VAULT_LOCKED')).toBe(true);
    expect((err as Error).message).toContain(`process ${process.pid}`);
    await lock.release();
    expect(await readLockHolder(path)).toBeNull();
  });

  it('takes over a stale lock and one left by a crash in the middle of a takeover', async () => {
    const path = join(tmp.dir, 'stale.lock');
    await writeStaleLock(path);
    const first = await acquireLock(path, new Date());
    expect((await readLockHolder(path))?.pid).toBe(process.pid);
    await first.release();
    await writeStaleLock(path);
    // A crashed starter's claim on this stale file: stale too, so it is taken over in turn.
    const { createHash } = await import('node:crypto');
    const { readFile } = await import('node:fs/promises');
    const claim = `${path}.takeover-${createHash('sha256')
      .update(await readFile(path))
      .digest('hex')
      .slice(0, 32)}`;
    await writeStaleLock(claim);
    const second = await acquireLock(path, new Date());
    expect((await readLockHolder(path))?.pid).toBe(process.pid);
    await second.release();
  });

  it.runIf(existsSync('/proc/sys/kernel/random/boot_id'))(
    'takes over a lock from an earlier boot even when its pid is alive now (power loss)',
    async () => {
      const path = join(tmp.dir, 'reboot.lock');
      // This very process is alive: only the boot id tells that the holder is gone.
      const stale = {
        pid: process.pid,
        host: hostname(),
        startedAt: new Date(0).toISOString(),
        nonce: 'x',
        boot: 'an-earlier-boot',
      };
      await writeFile(path, JSON.stringify(stale));
      const lock = await acquireLock(path, new Date());
      expect((await readLockHolder(path))?.startedAt).not.toBe(stale.startedAt);
      await lock.release();
    },
  );

  it('works on a file system without hard links', async () => {
    const path = join(tmp.dir, 'nolinks.lock');
    let linked = 0;
    const fs = faultyFs(
      () => (op, target) => (op === 'create' && target === path && linked++ === 0 ? 'EPERM' : null),
    );
    const lock = await acquireLock(path, new Date(), fs);
    expect((await readLockHolder(path))?.pid).toBe(process.pid);
    expect(
      isVaultError(await acquireLock(path, new Date(), fs).catch((e: unknown) => e), 'VAULT_LOCKED'),
    ).toBe(true);
    await lock.release();
    expect(await readLockHolder(path)).toBeNull();
  });

  it(`never lets two of ${RACERS} racing processes both take over a stale lock (${TRIALS} trials)`, async () => {
    const racers = Array.from({ length: RACERS }, () => Racer.start());
    try {
      for (const r of racers) expect(await r.next()).toBe('ready');
      for (let trial = 0; trial < TRIALS; trial++) {
        const path = join(tmp.dir, `race-${trial}.lock`);
        await writeStaleLock(path);
        for (const r of racers) r.send(`go ${path}`);
        const answers = await Promise.all(racers.map((r) => r.next()));
        expect(
          answers.filter((a) => a.startsWith('error')),
          `trial ${trial}`,
        ).toEqual([]);
        expect(
          answers.filter((a) => a === 'held'),
          `trial ${trial}: ${answers.join(',')}`,
        ).toHaveLength(1);
        for (const r of racers) r.send('release');
        await Promise.all(racers.map((r) => r.next()));
        expect(await readLockHolder(path)).toBeNull();
      }
      // No temp files or claims are left behind.
      expect((await readdir(tmp.dir)).filter((n) => n.includes('race-'))).toEqual([]);
    } finally {
      for (const r of racers) r.stop();
    }
  }, 120_000);
});
