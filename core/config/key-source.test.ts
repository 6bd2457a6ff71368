import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VaultError } from '../errors/catalogue.ts';
import {
  describeSecretEnv,
  loadOrCreateKeyFile,
  resolveConfig,
  resolveKeySourceWithOrigin,
  resolveNewPassphrase,
  type ConfigFlags,
  type Env,
  type KeySourceFlags,
  type KeySourceOptions,
  type SecretInput,
} from './index.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'svc-keysrc-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** A fake person: answers prompts from a list, and records what was asked. */
function input(options: { interactive?: boolean; answers?: string[]; stdin?: string } = {}): SecretInput & {
  asked: string[];
} {
  const answers = [...(options.answers ?? [])];
  const asked: string[] = [];
  return {
    interactive: options.interactive ?? false,
    asked,
    promptSecret: async (message, validate) => {
      asked.push(message);
      const answer = answers.shift();
      if (answer === undefined) throw new Error(`unexpected prompt ${message}`);
      const problem = validate?.(answer);
      if (problem !== undefined) throw new Error(problem);
      return answer;
    },
    readStdin: async () => options.stdin ?? '',
  };
}

const keyB64 = (): string => randomBytes(32).toString('base64');

async function resolveWith(
  env: Env,
  flags: KeySourceFlags = {},
  secretInput = input(),
  options: KeySourceOptions = {},
  configFlags: ConfigFlags = {},
) {
  const resolved = await resolveConfig({ env: { SVC_HOME: dir, ...env }, flags: configFlags, cwd: dir });
  return resolveKeySourceWithOrigin(resolved, flags, env, secretInput, options);
}

async function failure(promise: Promise<unknown>): Promise<VaultError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(VaultError);
  return error as VaultError;
}

describe('resolveKeySource', () => {
  it('reads SVC_VAULT_KEY', async () => {
    const key = keyB64();
    const found = await resolveWith({ SVC_VAULT_KEY: key });
    expect(found.origin).toBe('SVC_VAULT_KEY');
    expect(found.key).toEqual({ kind: 'key', key: new Uint8Array(Buffer.from(key, 'base64')) });
  });

  it('reports a malformed SVC_VAULT_KEY without echoing it', async () => {
    const error = await failure(resolveWith({ SVC_VAULT_KEY: 'not-a-key-secret' }));
    expect(error.exitCode).toBe(4);
    expect(error.message).not.toContain('not-a-key-secret');
  });

  it('prefers env over the default key file, and the key file over a prompt', async () => {
    const fileKey = await loadOrCreateKeyFile(path.join(dir, 'vault.key'));
    expect((await resolveWith({ SVC_VAULT_PASSPHRASE: 'from env!' })).key).toEqual({
      kind: 'passphrase',
      passphrase: 'from env!',
    });
    const person = input({ interactive: true, answers: ['typed'] });
    const found = await resolveWith({}, {}, person);
    expect(found.key).toEqual(fileKey.key);
    expect(found.keyFile).toBe(path.join(dir, 'vault.key'));
    expect(person.asked).toEqual([]);
  });

  it('lets flags beat env: --key-file, --passphrase, --passphrase-stdin', async () => {
    const explicit = path.join(dir, 'other.key');
    const fileKey = await loadOrCreateKeyFile(explicit);
    const env = { SVC_VAULT_KEY: keyB64() };
    expect((await resolveWith(env, {}, input(), {}, { keyFile: explicit })).key).toEqual(fileKey.key);
    expect((await resolveWith(env, { passphraseStdin: true }, input({ stdin: 'piped pass\n' }))).key).toEqual(
      {
        kind: 'passphrase',
        passphrase: 'piped pass',
      },
    );
    const person = input({ interactive: true, answers: ['typed pass'] });
    expect((await resolveWith(env, { passphrase: true }, person)).key).toEqual({
      kind: 'passphrase',
      passphrase: 'typed pass',
    });
  });

  it('--passphrase takes SVC_VAULT_PASSPHRASE when set, and needs a terminal otherwise', async () => {
    const found = await resolveWith({ SVC_VAULT_PASSPHRASE: 'env pass' }, { passphrase: true });
    expect(found.key).toEqual({ kind: 'passphrase', passphrase: 'env pass' });
    const error = await failure(resolveWith({}, { passphrase: true }));
    expect(error.code).toBe('VAULT_KEY_REQUIRED');
    expect(error.message).toMatch(/--passphrase-stdin/);
  });

  it('prompts on a terminal when nothing else is given, and fails without one', async () => {
    const person = input({ interactive: true, answers: ['typed'] });
    expect((await resolveWith({}, {}, person)).origin).toBe('prompt');
    expect(person.asked).toEqual(['Vault passphrase:']);
    const error = await failure(resolveWith({}));
    expect(error.code).toBe('VAULT_KEY_REQUIRED');
    expect(error.exitCode).toBe(4);
  });

  it('a missing --key-file is an error, not a fall-through', async () => {
    const error = await failure(
      resolveWith({ SVC_VAULT_KEY: keyB64() }, {}, input(), {}, { keyFile: 'gone.key' }),
    );
    expect(error.message).toContain(path.join(dir, 'gone.key'));
  });

  describe('with the vault kind known', () => {
    it('skips the default key file of a passphrase vault and prompts', async () => {
      await loadOrCreateKeyFile(path.join(dir, 'vault.key'));
      const person = input({ interactive: true, answers: ['typed'] });
      const found = await resolveWith({}, {}, person, { expectedKind: 'passphrase' });
      expect(found.key).toEqual({ kind: 'passphrase', passphrase: 'typed' });
    });

    it('breaks a tie between SVC_VAULT_KEY and SVC_VAULT_PASSPHRASE', async () => {
      const env = { SVC_VAULT_KEY: keyB64(), SVC_VAULT_PASSPHRASE: 'pp' };
      expect((await resolveWith(env, {}, input(), { expectedKind: 'passphrase' })).key.kind).toBe(
        'passphrase',
      );
      expect((await resolveWith(env, {}, input(), { expectedKind: 'key' })).key.kind).toBe('key');
      expect((await resolveWith(env)).key.kind).toBe('key');
    });

    it('does not prompt for a passphrase to a key vault', async () => {
      const error = await failure(resolveWith({}, {}, input({ interactive: true }), { expectedKind: 'key' }));
      expect(error.message).toMatch(/unlocked by a key/);
    });

    it('reports an explicit source of the wrong kind before asking anything', async () => {
      const person = input({ interactive: true, answers: ['x'] });
      const error = await failure(resolveWith({}, { passphrase: true }, person, { expectedKind: 'key' }));
      expect(error.code).toBe('VAULT_KEY_REQUIRED');
      expect(person.asked).toEqual([]);
    });
  });
});

describe('resolveNewPassphrase', () => {
  it('asks twice on a terminal and refuses a mismatch', async () => {
    const person = input({ interactive: true, answers: ['long enough 1', 'long enough 2'] });
    const error = await failure(
      resolveNewPassphrase({ env: {}, envName: 'SVC_VAULT_PASSPHRASE', input: person }),
    );
    expect(error.code).toBe('USAGE');
    expect(person.asked).toHaveLength(2);
    const ok = input({ interactive: true, answers: ['long enough', 'long enough'] });
    expect(await resolveNewPassphrase({ env: {}, envName: 'X', input: ok })).toEqual({
      kind: 'passphrase',
      passphrase: 'long enough',
    });
  });

  it('takes the named env variable, refuses short ones, and needs a terminal otherwise', async () => {
    const env = { SVC_NEW_VAULT_PASSPHRASE: 'new and long' };
    expect(await resolveNewPassphrase({ env, envName: 'SVC_NEW_VAULT_PASSPHRASE', input: input() })).toEqual({
      kind: 'passphrase',
      passphrase: 'new and long',
    });
    const short = await failure(resolveNewPassphrase({ env: { P: 'short' }, envName: 'P', input: input() }));
    expect(short.message).toMatch(/at least 8/);
    const none = await failure(resolveNewPassphrase({ env: {}, envName: 'P', input: input() }));
    expect(none.code).toBe('VAULT_KEY_REQUIRED');
  });
});

describe('loadOrCreateKeyFile', () => {
  it('generates a 0600 key file once and reuses it afterwards', async () => {
    const file = path.join(dir, 'k.key');
    const first = await loadOrCreateKeyFile(file);
    expect(first.created).toBe(true);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const second = await loadOrCreateKeyFile(file);
    expect(second).toEqual({ key: first.key, created: false });
  });

  it('rejects a key file that holds no key', async () => {
    const file = path.join(dir, 'bad.key');
    await writeFile(file, 'hello\n');
    await expect(loadOrCreateKeyFile(file)).rejects.toBeInstanceOf(VaultError);
  });
});

describe('describeSecretEnv', () => {
  it('says which variables are set, never their values', () => {
    const shown = describeSecretEnv({ SVC_VAULT_KEY: 'super-secret', SVC_VAULT_PASSPHRASE: '' });
    expect(shown).toEqual({
      vaultKey: '(set via SVC_VAULT_KEY)',
      passphrase: '(not set)',
      newPassphrase: '(not set)',
    });
  });
});
