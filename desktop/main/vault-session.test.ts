import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FAST_KDF, makeTempDir, snapshotFiles, type TempDir } from '../../core/test-support/temp-vault.ts';
import { createVault, openVault } from '../../core/vault/index.ts';
import { vaultPaths } from '../../core/backends/embedded/paths.ts';
import { coreVaultSessionDeps } from './core-deps.ts';
import { VaultSession } from './vault-session.ts';

const silent = { level: 'silent' as const };

function newSession(): VaultSession {
  return new VaultSession(
    { ...coreVaultSessionDeps, createVault: (o) => createVault({ ...o, kdf: FAST_KDF }) },
    { version: 'test', logger: silent, kdf: FAST_KDF },
  );
}

/** The new vault's default owner has no password yet: the first sign-in claims it. */
const OWNER = { email: 'owner@example.test', password: 'a good long password' };

async function redeem(url: string, secret: string, owner?: typeof OWNER): Promise<Response> {
  return fetch(`${url}/console/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ secret, owner }),
  });
}

describe('VaultSession', () => {
  let temp: TempDir;
  let session: VaultSession;
  beforeEach(async () => {
    temp = await makeTempDir('svc-desktop-');
    session = newSession();
  });
  afterEach(async () => {
    await session.lock();
    await temp.cleanup();
  });

  it('creates a new vault, serves it on loopback and hands the console one sign-in secret once', async () => {
    const outcome = await session.create(temp.vaultPath, {
      kind: 'passphrase',
      passphrase: 'correct horse battery',
    });
    if (!outcome.ok) throw new Error(outcome.message);
    expect(outcome.info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(outcome.info.consoleUrl).toBe(`${outcome.info.url}/console/`);
    expect(outcome.info.apiKey).toEqual(expect.any(String));
    expect((await fetch(`${outcome.info.url}/healthz`)).status).toBe(200);

    const secret = session.takeConsoleSignIn();
    expect(secret).toMatch(/^svco_/);
    expect(session.takeConsoleSignIn()).toBeNull();
    // Asked to claim the unclaimed owner first; the secret stays usable until that works.
    expect((await redeem(outcome.info.url, secret!)).status).toBe(400);
    const signedIn = await redeem(outcome.info.url, secret!, OWNER);
    expect(signedIn.status).toBe(200);
    // The session is in the console cookie; the body carries its CSRF value only.
    expect(signedIn.headers.get('set-cookie')).toMatch(/^svc_console_\d+=svcs_/);
    expect(((await signedIn.json()) as { csrf_token: string }).csrf_token).toEqual(expect.any(String));
    // Exchanged once: the same secret is refused the second time.
    expect((await redeem(outcome.info.url, secret!)).status).toBe(401);
  });

  it('unlocks with the right key; the first start key is not shown again', async () => {
    const vault = await createVault({ path: temp.vaultPath, key: temp.key, kdf: FAST_KDF });
    await vault.close();
    const first = await session.unlock(temp.vaultPath, temp.key);
    expect(first.ok && first.info.apiKey).toEqual(expect.any(String));
    await session.lock();
    const second = await session.unlock(temp.vaultPath, temp.key);
    expect(second.ok).toBe(true);
    expect(second.ok && second.info.apiKey).toBeNull();
  });

  it('refuses a wrong key with a clear message and changes nothing on disk', async () => {
    const vault = await createVault({
      path: temp.vaultPath,
      key: { kind: 'passphrase', passphrase: 'the right passphrase' },
      kdf: FAST_KDF,
    });
    await vault.close();
    const before = await snapshotFiles(temp.dir);
    const outcome = await session.unlock(temp.vaultPath, {
      kind: 'passphrase',
      passphrase: 'a wrong passphrase',
    });
    expect(outcome).toMatchObject({ ok: false, code: 'VAULT_WRONG_KEY' });
    expect(session.current).toBeNull();
    expect(await snapshotFiles(temp.dir)).toEqual(before);
  });

  it('names the holder (and its server) when another process holds the vault', async () => {
    const held = await createVault({ path: temp.vaultPath, key: temp.key, kdf: FAST_KDF });
    try {
      await held.setLockUrl('http://127.0.0.1:4567');
      const outcome = await session.unlock(temp.vaultPath, temp.key);
      expect(outcome.ok).toBe(false);
      if (outcome.ok) return;
      expect(outcome.code).toBe('VAULT_LOCKED');
      expect(outcome.message).toContain(`process ${process.pid}`);
      expect(outcome.holder).toMatchObject({ pid: process.pid, url: 'http://127.0.0.1:4567' });
    } finally {
      await held.close();
    }
  });

  it('refuses to create over an existing vault, leaving it as it was', async () => {
    const vault = await createVault({ path: temp.vaultPath, key: temp.key, kdf: FAST_KDF });
    await vault.close();
    const before = await snapshotFiles(temp.dir);
    const outcome = await session.create(temp.vaultPath, {
      kind: 'passphrase',
      passphrase: 'another passphrase',
    });
    expect(outcome).toMatchObject({ ok: false, code: 'VAULT_EXISTS' });
    expect(await snapshotFiles(temp.dir)).toEqual(before);
  });

  it('locking closes the vault cleanly: the server stops, the lock is gone, every write is there', async () => {
    const created = await session.create(temp.vaultPath, temp.key);
    if (!created.ok) throw new Error(created.message);
    const { url } = created.info;
    // A write through the server: the sign-in stores a session.
    expect((await redeem(url, session.takeConsoleSignIn()!, OWNER)).status).toBe(200);

    await session.lock();
    expect(session.current).toBeNull();
    expect(existsSync(vaultPaths(temp.vaultPath).lock)).toBe(false);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();

    const reopened = await openVault({ path: temp.vaultPath, key: temp.key });
    try {
      const tenants = await reopened.db.selectFrom('tenants').select('id').execute();
      const sessions = await reopened.db.selectFrom('sessions').select('id').execute();
      expect(tenants).toHaveLength(1);
      expect(sessions).toHaveLength(1);
      expect((await reopened.status()).journal_records).toBe(0);
    } finally {
      await reopened.close();
    }
  });

  it('opens one vault at a time', async () => {
    const created = await session.create(temp.vaultPath, temp.key);
    expect(created.ok).toBe(true);
    expect(await session.unlock(temp.vaultPath, temp.key)).toMatchObject({ ok: false, code: 'ALREADY_OPEN' });
  });
});
