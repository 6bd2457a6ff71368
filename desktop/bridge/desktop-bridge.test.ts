/**
 * The channel map of the desktop bridge: at run time, one channel per method; at compile time
 * (`npm run typecheck` checks this file), the preload's methods, the main process's handlers and
 * the pages' calls all follow the map, so a change on one side that the other misses fails.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { desktopApiHandlers } from '../main/desktop-api.ts';
import {
  DESKTOP_API,
  type DesktopAnswer,
  type DesktopBridge,
  type DesktopChannels,
  type DesktopHandlers,
  type PathRequest,
  type RecentVault,
  type UnlockOutcome,
  type UnlockRequest,
} from './desktop-bridge.ts';

describe('the desktop bridge map', () => {
  it('binds every method to a channel of its own', () => {
    const channels = Object.values(DESKTOP_API);
    expect(new Set(channels).size).toBe(channels.length);
    for (const channel of channels) expect(channel).toMatch(/^(vault|console):[a-z-]+$/);
    expect(Object.isFrozen(DESKTOP_API)).toBe(true);
  });

  it('types what a page sends and what it gets back, both ways', () => {
    // A page calls each method with exactly its request and gets exactly its answer.
    expectTypeOf<DesktopBridge['unlockVault']>().parameters.toEqualTypeOf<[UnlockRequest]>();
    expectTypeOf<DesktopBridge['unlockVault']>().returns.resolves.toEqualTypeOf<UnlockOutcome>();
    expectTypeOf<DesktopBridge['unlockRemembered']>().parameters.toEqualTypeOf<[PathRequest]>();
    expectTypeOf<DesktopBridge['listRecentVaults']>().parameters.toEqualTypeOf<[]>();
    expectTypeOf<DesktopBridge['listRecentVaults']>().returns.resolves.toEqualTypeOf<RecentVault[]>();
    expectTypeOf<DesktopBridge['takeConsoleSignIn']>().returns.resolves.toEqualTypeOf<string | null>();
    // The main process answers each method as the map says (its handlers are typed by it).
    expectTypeOf(desktopApiHandlers).returns.toEqualTypeOf<DesktopHandlers>();
    expectTypeOf<DesktopHandlers['createVault']>().returns.resolves.toEqualTypeOf<
      DesktopAnswer<'createVault'>
    >();
    // A channel is the map's, and no other string.
    expectTypeOf(DESKTOP_API.unlockVault).toEqualTypeOf<DesktopChannels['unlockVault']['channel']>();
    // @ts-expect-error a page cannot call a method without its request
    const call: Parameters<DesktopBridge['unlockVault']> = [];
    // @ts-expect-error nor pass one to a method that takes none
    const none: Parameters<DesktopBridge['openConsole']> = [{ path: '/x' }];
    // @ts-expect-error the preload binds each method to the map's channel (preload.cts checks this way)
    const drifted = { unlockVault: 'vault:open' } as const satisfies Partial<{
      readonly [M in keyof DesktopChannels]: DesktopChannels[M]['channel'];
    }>;
    expect([call, none, drifted]).toHaveLength(3);
  });
});
