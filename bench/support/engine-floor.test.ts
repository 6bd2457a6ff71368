import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StorageFs } from '../../core/backends/embedded/storage-fs.ts';
import { unsyncedFs } from '../../core/test-support/unsynced-fs.ts';
import { EngineFloor } from './engine-floor.ts';

/** The syncless layer, counting the durable writes made to each file. */
function counting(): { fs: StorageFs; writes: Map<string, number> } {
  const writes = new Map<string, number>();
  const fs: StorageFs = {
    ...unsyncedFs,
    open: async (path, flags, mode) => {
      const handle = await unsyncedFs.open(path, flags, mode);
      if (flags !== 'r+durable') return handle;
      return {
        ...handle,
        write: (buffer, offset, length, position) => {
          writes.set(basename(path), (writes.get(basename(path)) ?? 0) + 1);
          return handle.write(buffer, offset, length, position);
        },
      };
    },
  };
  return { fs, writes };
}

describe('EngineFloor', () => {
  let parent: string;
  beforeEach(async () => {
    parent = await mkdtemp(join(tmpdir(), 'svc-engine-floor-test-'));
  });
  afterEach(async () => {
    await rm(parent, { recursive: true, force: true });
  });

  it.each(['sql.js', 'node:sqlite'] as const)(
    'gives back what it tokenized to whoever reveals it, and nothing for an unknown id (%s)',
    async (engine) => {
      const floor = await EngineFloor.open(parent, unsyncedFs, engine);
      try {
        const { token, durable } = floor.tokenize('app', 'card', '4242424242424242');
        await durable;
        expect(token).toEqual({ id: token.id, type: 'card', mask: '424242XXXXXX4242' });
        expect(floor.reveal(token.id)).toBe('4242424242424242');
        expect(floor.reveal('no-such-token')).toBeNull();
      } finally {
        await floor.close();
      }
      // Its journal's folder is gone.
      expect(await readdir(parent)).toEqual([]);
    },
  );

  it('knows a registered key only by its hash, and no other key', async () => {
    const floor = await EngineFloor.open(parent, unsyncedFs);
    try {
      floor.addApiKey('key-one', 'first');
      floor.addApiKey('key-two', 'second');
      expect(floor.application('key-two')).toBe('second');
      expect(floor.application('key-three')).toBeNull();
    } finally {
      await floor.close();
    }
  });

  it('groups whoever waits into one transaction and one durable write pair', async () => {
    const { fs, writes } = counting();
    const floor = await EngineFloor.open(parent, fs);
    try {
      // The first starts a group alone; the other 19 arrive while its pair is written.
      const settled: boolean[] = [];
      const entries = Array.from({ length: 20 }, (_, i) =>
        floor.audit('app', `tok_${i}`, 'use').then(() => {
          settled[i] = true;
        }),
      );
      expect(settled).toEqual([]);
      await Promise.all(entries);
      expect(writes.get('vault.journal')).toBe(2);
      expect(writes.get('vault.ack')).toBe(2);
    } finally {
      await floor.close();
    }
  });

  it('writes an invoke entry with the next group, not in a group of its own', async () => {
    const { fs, writes } = counting();
    const floor = await EngineFloor.open(parent, fs);
    try {
      let invoked = false;
      const invoke = floor.audit('app', 'tok_1', 'invoke').then(() => {
        invoked = true;
      });
      await new Promise((resolve) => setImmediate(resolve));
      expect(writes.get('vault.journal')).toBeUndefined();
      await floor.audit('app', 'tok_2', 'use');
      await invoke;
      expect(invoked).toBe(true);
      expect(writes.get('vault.journal')).toBe(1);
    } finally {
      await floor.close();
    }
  });

  it('answers a read only once its entry is durable, and reads nothing for an unknown id', async () => {
    const { fs, writes } = counting();
    const floor = await EngineFloor.open(parent, fs);
    try {
      const { token, durable } = floor.tokenize('app', 'card', '4242424242424242');
      await durable;
      expect(writes.get('vault.journal')).toBe(1);
      expect(await floor.read('app', token.id)).toEqual({ ...token, data: '4242424242424242' });
      expect(writes.get('vault.journal')).toBe(2);
      expect(await floor.read('app', 'no-such-token')).toBeNull();
      expect(writes.get('vault.journal')).toBe(2);
    } finally {
      await floor.close();
    }
  });
});
