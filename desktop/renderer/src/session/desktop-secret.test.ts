import { describe, expect, it } from 'vitest';
import { takeDesktopSecret } from './desktop-secret';

const SECRET = 'svco_' + 'a'.repeat(43);

describe('takeDesktopSecret', () => {
  it('takes the secret the desktop bridge hands over', async () => {
    expect(await takeDesktopSecret({ takeConsoleSignIn: () => Promise.resolve(SECRET) })).toBe(SECRET);
  });

  it('is null in a browser, after the first call, and when the bridge refuses or answers oddly', async () => {
    expect(await takeDesktopSecret(undefined)).toBeNull();
    expect(await takeDesktopSecret({})).toBeNull();
    expect(await takeDesktopSecret({ takeConsoleSignIn: () => Promise.resolve(null) })).toBeNull();
    expect(
      // A main process that drifted from the channel map (the types forbid it; the page still checks).
      await takeDesktopSecret({
        takeConsoleSignIn: (() => Promise.resolve({ secret: SECRET })) as unknown as () => Promise<string>,
      }),
    ).toBeNull();
    expect(
      await takeDesktopSecret({ takeConsoleSignIn: () => Promise.reject(new Error('refused')) }),
    ).toBeNull();
  });
});
