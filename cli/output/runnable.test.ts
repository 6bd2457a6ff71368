import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runnable, svcCommand } from './runnable.ts';

let bin: string;
beforeEach(async () => {
  bin = await mkdtemp(path.join(tmpdir(), 'svc-path-'));
  await writeFile(path.join(bin, 'svc'), '#!/bin/sh\n');
  await chmod(path.join(bin, 'svc'), 0o755);
});
afterEach(() => rm(bin, { recursive: true, force: true }));

describe('suggested commands are written as this user can run them', () => {
  it('is `svc` when on the PATH, else `npx svc`; under npm always `npx svc`', () => {
    expect(svcCommand({ PATH: bin })).toBe('svc');
    expect(svcCommand({ PATH: '/nonexistent' })).toBe('npx svc');
    expect(svcCommand({})).toBe('npx svc');
    expect(svcCommand({ PATH: bin, npm_command: 'exec' })).toBe('npx svc');
  });

  it('rewrites only the commands a message suggests', () => {
    const message = "no application x in this vault (see 'svc app list'); run: svc start; the svc home";
    expect(runnable({}, message)).toBe(
      "no application x in this vault (see 'npx svc app list'); run: npx svc start; the svc home",
    );
    expect(runnable({ PATH: bin }, message)).toBe(message);
  });
});
