import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DIGEST_FILE, consoleInputsDigest, recordedDigest } from './console-build-digest.ts';

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('the console build digest', () => {
  it('is the same for the same sources', async () => {
    const digest = await consoleInputsDigest();
    expect(digest).toMatch(/^[0-9a-f]{16}$/);
    expect(await consoleInputsDigest()).toBe(digest);
  });

  it('is read back from a build that records it, and is absent from one that does not', async () => {
    const build = await mkdtemp(join(tmpdir(), 'svc-console-digest-'));
    folders.push(build);
    expect(await recordedDigest(build)).toBeUndefined();
    await writeFile(join(build, DIGEST_FILE), 'abc123\n');
    expect(await recordedDigest(build)).toBe('abc123');
  });
});
