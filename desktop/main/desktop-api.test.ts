import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FAST_KDF, makeTempDir, snapshotFiles, type TempDir } from '../../core/test-support/temp-vault.ts';
import { createVault } from '../../core/vault/index.ts';
import { coreVaultSessionDeps } from './core-deps.ts';
import {
  desktopApiHandlers,
  registerIpcHandlers,
  type DesktopHandlers,
  type IpcEventLike,
} from './desktop-api.ts';
import { DESKTOP_API, IpcArgumentError, parseCreateRequest, parseUnlockRequest } from './ipc-contract.ts';
import { RecentVaults } from './recent-vaults.ts';
import { RememberedKeys, type SafeStorageLike } from './remembered-keys.ts';
import { AppOrigins } from './security.ts';
import { VaultSession } from './vault-session.ts';

const START = 'file:///app/desktop/start-screen/dist/index.html';

/** A keychain stand-in: reversible, but never the plain text. */
const fakeKeychain = (available = true): SafeStorageLike => ({
  isEncryptionAvailable: () => available,
  encryptString: (text) => Buffer.from(Buffer.from(text, 'utf8').map((b) => b ^ 0x5a)),
  decryptString: (sealed) => Buffer.from(sealed.map((b) => b ^ 0x5a)).toString('utf8'),
});

describe('IPC argument parsing', () => {
  it('accepts the documented shapes', () => {
    expect(
      parseUnlockRequest({ path: '/v/vault.svc', secret: { kind: 'passphrase', passphrase: 'x' } }),
    ).toEqual({
      path: '/v/vault.svc',
      secret: { kind: 'passphrase', passphrase: 'x' },
      remember: false,
    });
    expect(
      parseCreateRequest({
        path: '/v/vault.svc',
        secret: { kind: 'passphrase', passphrase: 'long enough', confirmation: 'long enough' },
        remember: true,
      }).remember,
    ).toBe(true);
  });

  it.each([
    ['not an object', 'x'],
    ['an array', []],
    ['a relative path', { path: 'vault.svc', secret: { kind: 'passphrase', passphrase: 'x' } }],
    ['a NUL in the path', { path: '/v\0/x', secret: { kind: 'passphrase', passphrase: 'x' } }],
    ['an unknown field', { path: '/v', secret: { kind: 'passphrase', passphrase: 'x' }, extra: 1 }],
    ['an unknown kind', { path: '/v', secret: { kind: 'raw', key: 'x' } }],
    ['an empty passphrase', { path: '/v', secret: { kind: 'passphrase', passphrase: '' } }],
    ['a huge passphrase', { path: '/v', secret: { kind: 'passphrase', passphrase: 'x'.repeat(5000) } }],
    ['a relative key file', { path: '/v', secret: { kind: 'key-file', keyFile: 'k.key' } }],
    ['mixed secrets', { path: '/v', secret: { kind: 'key-file', keyFile: '/k', passphrase: 'x' } }],
    [
      'a non-boolean remember',
      { path: '/v', secret: { kind: 'passphrase', passphrase: 'x' }, remember: 'yes' },
    ],
    ['a class instance', new Date()],
  ])('refuses an unlock request with %s', (_name, value) => {
    expect(() => parseUnlockRequest(value)).toThrow(IpcArgumentError);
  });

  it('refuses a new passphrase that is short or not confirmed, without echoing it', () => {
    const short = { path: '/v', secret: { kind: 'passphrase', passphrase: 'short', confirmation: 'short' } };
    expect(() => parseCreateRequest(short)).toThrow(/at least 8 characters/);
    const mismatch = {
      path: '/v',
      secret: { kind: 'passphrase', passphrase: 'secret-one-1', confirmation: 'secret-two-2' },
    };
    expect(() => parseCreateRequest(mismatch)).toThrow(/does not match/);
    try {
      parseCreateRequest(mismatch);
    } catch (error) {
      expect(String(error)).not.toContain('secret-one-1');
    }
  });
});

describe('registerIpcHandlers', () => {
  const origins = new AppOrigins(START);
  origins.setServer('http://127.0.0.1:5000');
  const listeners = new Map<string, (event: IpcEventLike, ...args: unknown[]) => Promise<unknown>>();
  const handlers = Object.fromEntries(
    Object.keys(DESKTOP_API).map((method) => [
      method,
      vi.fn(async (argument: unknown) => ({ method, argument })),
    ]),
  ) as unknown as DesktopHandlers;
  registerIpcHandlers({ handle: (channel, listener) => listeners.set(channel, listener) }, handlers, origins);
  const call = (channel: string, url: string | null, ...args: unknown[]) =>
    listeners.get(channel)!({ senderFrame: url === null ? null : { url } }, ...args);

  it('registers exactly one handler per documented channel', () => {
    expect([...listeners.keys()].sort()).toEqual(Object.values(DESKTOP_API).sort());
  });

  it('answers the start screen the vault methods and the console only its sign-in', async () => {
    await expect(call(DESKTOP_API.listRecentVaults, START)).resolves.toEqual({ method: 'listRecentVaults' });
    await expect(call(DESKTOP_API.takeConsoleSignIn, 'http://127.0.0.1:5000/console/')).resolves.toEqual({
      method: 'takeConsoleSignIn',
    });
    await expect(call(DESKTOP_API.unlockVault, 'http://127.0.0.1:5000/console/', {})).rejects.toThrow(
      /not available to this page/,
    );
    await expect(call(DESKTOP_API.takeConsoleSignIn, START)).rejects.toThrow(/not available/);
  });

  it('refuses foreign pages, frames without a URL and extra arguments', async () => {
    await expect(call(DESKTOP_API.listRecentVaults, 'https://evil.example/')).rejects.toThrow(
      /not available/,
    );
    await expect(call(DESKTOP_API.takeConsoleSignIn, 'http://127.0.0.1:5001/')).rejects.toThrow(
      /not available/,
    );
    await expect(call(DESKTOP_API.listRecentVaults, null)).rejects.toThrow(/not available/);
    await expect(call(DESKTOP_API.unlockVault, START, {}, {})).rejects.toThrow(/at most one argument/);
  });
});

describe('desktop API handlers over real vaults', () => {
  let temp: TempDir;
  let session: VaultSession;
  let api: DesktopHandlers;
  let remembered: RememberedKeys;
  const showConsole = vi.fn(async () => undefined);

  beforeEach(async () => {
    temp = await makeTempDir('svc-desktop-api-');
    session = new VaultSession(
      { ...coreVaultSessionDeps, createVault: (o) => createVault({ ...o, kdf: FAST_KDF }) },
      { version: 'test', logger: { level: 'silent' } },
    );
    remembered = new RememberedKeys(join(temp.dir, 'app', 'remembered-keys.json'), fakeKeychain());
    showConsole.mockClear();
    api = desktopApiHandlers({
      session,
      recent: new RecentVaults(join(temp.dir, 'app', 'recent.json')),
      remembered,
      dialogs: {
        chooseVaultFile: async () => temp.vaultPath,
        chooseNewVaultLocation: async () => temp.vaultPath,
        chooseKeyFile: async () => null,
        chooseNewKeyFileLocation: async () => null,
      },
      showConsole,
      now: () => new Date('2026-01-02T03:04:05Z'),
    });
  });
  afterEach(async () => {
    await session.lock();
    await temp.cleanup();
  });

  it('creates a vault with a generated key file, then unlocks it by that key file', async () => {
    const keyFile = join(temp.dir, 'vault.key');
    const created = await api.createVault({
      path: temp.vaultPath,
      secret: { kind: 'new-key-file', keyFile },
    });
    expect(created).toMatchObject({ ok: true });
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    await session.lock();

    const unlocked = await api.unlockVault({ path: temp.vaultPath, secret: { kind: 'key-file', keyFile } });
    expect(unlocked).toMatchObject({ ok: true, info: { path: temp.vaultPath } });
    expect(await api.listRecentVaults(undefined)).toEqual([
      { path: temp.vaultPath, openedAt: '2026-01-02T03:04:05.000Z', remembered: false },
    ]);
    await api.openConsole(undefined);
    expect(showConsole).toHaveBeenCalledWith(expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/console\/$/));
  });

  it('never overwrites an existing key file', async () => {
    const keyFile = join(temp.dir, 'vault.key');
    const created = await api.createVault({
      path: temp.vaultPath,
      secret: { kind: 'new-key-file', keyFile },
    });
    expect(created).toMatchObject({ ok: true });
    await session.lock();
    const before = await readFile(keyFile);
    const again = await api.createVault({
      path: join(temp.dir, 'other.svc'),
      secret: { kind: 'new-key-file', keyFile },
    });
    expect(again).toMatchObject({ ok: false, code: 'VAULT_EXISTS' });
    expect(await readFile(keyFile)).toEqual(before);
  });

  it('a missing key file is a clear refusal, nothing opened', async () => {
    const outcome = await api.unlockVault({
      path: temp.vaultPath,
      secret: { kind: 'key-file', keyFile: join(temp.dir, 'missing.key') },
    });
    expect(outcome).toMatchObject({ ok: false, code: 'VAULT_KEY_REQUIRED' });
    expect(session.current).toBeNull();
  });

  it('remembers a passphrase only when asked, sealed by the keychain, and unlocks with it', async () => {
    const passphrase = 'remember me please';
    await api.createVault({
      path: temp.vaultPath,
      secret: { kind: 'passphrase', passphrase, confirmation: passphrase },
    });
    expect(await remembered.has(temp.vaultPath)).toBe(false);
    await session.lock();

    await api.unlockVault({
      path: temp.vaultPath,
      secret: { kind: 'passphrase', passphrase },
      remember: true,
    });
    const file = await readFile(join(temp.dir, 'app', 'remembered-keys.json'), 'utf8');
    expect(file).not.toContain(passphrase);
    expect((await stat(join(temp.dir, 'app', 'remembered-keys.json'))).mode & 0o777).toBe(0o600);
    await session.lock();

    expect(await api.unlockRemembered({ path: temp.vaultPath })).toMatchObject({ ok: true });
    await session.lock();
    await api.forgetRememberedKey({ path: temp.vaultPath });
    expect(await api.unlockRemembered({ path: temp.vaultPath })).toMatchObject({
      ok: false,
      code: 'VAULT_KEY_REQUIRED',
    });
  });

  it('a wrong passphrase changes nothing on disk and remembers nothing', async () => {
    const vault = await createVault({
      path: temp.vaultPath,
      key: { kind: 'passphrase', passphrase: 'the right one' },
      kdf: FAST_KDF,
    });
    await vault.close();
    const before = await snapshotFiles(temp.dir);
    const outcome = await api.unlockVault({
      path: temp.vaultPath,
      secret: { kind: 'passphrase', passphrase: 'the wrong one' },
      remember: true,
    });
    expect(outcome).toMatchObject({ ok: false, code: 'VAULT_WRONG_KEY' });
    expect(await snapshotFiles(temp.dir)).toEqual(before);
  });

  it('refuses bad arguments before touching anything', async () => {
    await expect(api.unlockVault({ path: 'relative.svc' })).rejects.toThrow(IpcArgumentError);
    await expect(api.listRecentVaults('surprise')).rejects.toThrow(IpcArgumentError);
    await expect(api.forgetRememberedKey({ path: 1 })).rejects.toThrow(IpcArgumentError);
  });

  it('opening the console needs an open vault', async () => {
    await expect(api.openConsole(undefined)).rejects.toThrow(/No vault is open/);
  });
});

describe('RememberedKeys', () => {
  it('keeps nothing when the OS keychain is unavailable', async () => {
    const temp = await makeTempDir('svc-desktop-keys-');
    try {
      const keys = new RememberedKeys(join(temp.dir, 'k.json'), fakeKeychain(false));
      await keys.remember('/v', { kind: 'passphrase', passphrase: 'x' });
      expect(await keys.has('/v')).toBe(false);
      expect(await keys.recall('/v')).toBeNull();
    } finally {
      await temp.cleanup();
    }
  });
});
