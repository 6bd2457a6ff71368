import { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configureTree, run } from '../../main.ts';
import { makeTestIo, type TempHome, type TestIo } from '../../test-support/harness.ts';
import { makeInitHome } from '../../test-support/tenant-home.ts';
import { newConsoleCommand } from './console.ts';

/** `svc console` in-process on port 0, with a recording opener instead of a browser. */

let home: TempHome;
beforeEach(async () => {
  home = await makeInitHome();
});
afterEach(() => home.cleanup());

interface Opened {
  readonly urls: string[];
  next(): Promise<string>;
}

function recordingOpener(): Opened & { open(url: string): Promise<void> } {
  const urls: string[] = [];
  let wake: () => void = () => undefined;
  return {
    urls,
    open: async (url) => {
      urls.push(url);
      wake();
    },
    // Woken by the next open, not polled; after 20 s without one, says so.
    next: async () => {
      const seen = urls.length;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 20_000);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      const url = urls[seen];
      if (url === undefined) throw new Error('nothing was opened');
      return url;
    },
  };
}

/** Runs `svc console <args>` with `openBrowser`; resolves with the exit code when the command ends. */
function svcConsole(
  io: TestIo,
  openBrowser: (url: string) => Promise<void>,
  args: string[] = [],
): Promise<number> {
  const program = new Command('svc').addCommand(newConsoleCommand(io.deps, undefined, openBrowser));
  configureTree(program, io.deps);
  return program.parseAsync(['console', '--port', '0', ...args], { from: 'user' }).then(() => 0);
}

describe('svc console', () => {
  it('serves the vault and opens the console with a fresh one-time link, until stopped', async () => {
    const io = makeTestIo({ env: home.env() });
    const opened = recordingOpener();
    const exit = svcConsole(io, opened.open);
    const link = await opened.next();
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/console\/#svco_\S+$/);
    // The link opened is the one printed, and the server behind it answers.
    expect(io.stdout()).toContain(`Console (one-time sign-in link, valid 5 minutes): ${link}`);
    const origin = new URL(link).origin;
    expect((await fetch(`${origin}/healthz`)).status).toBe(200);
    io.shutdown('SIGTERM');
    expect(await exit).toBe(0);
    expect(opened.urls).toHaveLength(1);
  });

  it('opens the console of the server that already holds the vault, at its sign-in', async () => {
    const serving = makeTestIo({ env: home.env() });
    const served = run(['serve', '--port', '0'], serving.deps);
    const url = /^URL: (\S+)$/m.exec(await serving.waitForStdout((t) => t.includes('URL: ')))?.[1];
    try {
      const io = makeTestIo({ env: home.env() });
      const opened = recordingOpener();
      expect(await svcConsole(io, opened.open)).toBe(0);
      expect(opened.urls).toEqual([`${url}/console/`]);
      expect(io.stdout()).toBe(`Console: ${url}/console/\n`);
      expect(io.stderr()).toContain('sign in with e-mail and password');
    } finally {
      serving.shutdown('SIGTERM');
      expect(await served).toBe(0);
    }
  });

  it('keeps serving when no browser can be opened, and says so', async () => {
    const io = makeTestIo({ env: home.env() });
    const exit = svcConsole(io, async () => {
      throw new Error('no opener here');
    });
    await io.waitForStdout((t) => t.includes('Console (one-time sign-in link'));
    await io.waitForStderr((t) => t.includes('could not open a browser'));
    expect(io.stderr()).toContain('warning: could not open a browser (no opener here); open the link above');
    io.shutdown('SIGTERM');
    expect(await exit).toBe(0);
  });
});
