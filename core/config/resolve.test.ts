import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VaultError } from '../errors/catalogue.ts';
import { limitsFromSettings } from '../sandbox/limits.ts';
import { FIXED_DEFAULTS, resolveConfig } from './index.ts';

let dir: string;
let home: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'svc-config-'));
  home = path.join(dir, 'home');
  await mkdir(home);
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const writeConfig = (file: string, value: unknown): Promise<void> => writeFile(file, JSON.stringify(value));

async function configError(promise: Promise<unknown>): Promise<VaultError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(VaultError);
  expect((error as VaultError).code).toBe('CONFIG_INVALID');
  expect((error as VaultError).exitCode).toBe(2);
  return error as VaultError;
}

describe('resolveConfig', () => {
  it('falls back to defaults derived from ~/.svc', async () => {
    const { config, sources, configFile } = await resolveConfig({ env: {}, cwd: dir });
    const defaultHome = path.join(os.homedir(), '.svc');
    expect(config).toEqual({
      home: defaultHome,
      vaultPath: path.join(defaultHome, 'vault.svc'),
      keyFile: path.join(defaultHome, 'vault.key'),
      ...FIXED_DEFAULTS,
    });
    expect(Object.values(sources).every((s) => s === 'default')).toBe(true);
    expect(configFile.path).toBe(path.join(defaultHome, 'config.json'));
  });

  it('derives the vault and key paths from SVC_HOME', async () => {
    const { config, sources } = await resolveConfig({ env: { SVC_HOME: home }, cwd: dir });
    expect(config.vaultPath).toBe(path.join(home, 'vault.svc'));
    expect(config.keyFile).toBe(path.join(home, 'vault.key'));
    expect(sources.home).toBe('env');
    expect(sources.vaultPath).toBe('default');
  });

  it('applies flags > env > file > defaults, field by field', async () => {
    await writeConfig(path.join(home, 'config.json'), {
      port: 9000,
      host: '::1',
      logLevel: 'debug',
      bodyLimit: 10,
    });
    const { config, sources, configFile } = await resolveConfig({
      env: { SVC_HOME: home, SVC_PORT: '9001', SVC_LOG_LEVEL: 'warn' },
      flags: { port: 9002 },
      cwd: dir,
    });
    expect(configFile.loaded).toBe(true);
    expect([config.port, sources.port]).toEqual([9002, 'flag']);
    expect([config.logLevel, sources.logLevel]).toEqual(['warn', 'env']);
    expect([config.host, sources.host]).toEqual(['::1', 'file']);
    expect([config.bodyLimit, sources.bodyLimit]).toEqual([10, 'file']);
    expect([config.allowRemote, sources.allowRemote]).toEqual([false, 'default']);
  });

  it('parses env values and treats empty variables as unset', async () => {
    const { config, sources } = await resolveConfig({
      env: {
        SVC_HOME: home,
        SVC_PORT: '0',
        SVC_ALLOW_REMOTE: 'yes',
        SVC_BODY_LIMIT: '2048',
        SVC_SNAPSHOT_THRESHOLD: '4096',
        SVC_HOST: '',
      },
      cwd: dir,
    });
    expect(config).toMatchObject({
      port: 0,
      allowRemote: true,
      bodyLimit: 2048,
      snapshotThresholdBytes: 4096,
    });
    expect(sources.host).toBe('default');
  });

  it.each([
    ['SVC_PORT', '65536', /SVC_PORT: must be between 0 and 65535/],
    ['SVC_PORT', 'http', /SVC_PORT: expected a whole number/],
    ['SVC_ALLOW_REMOTE', 'maybe', /SVC_ALLOW_REMOTE: expected true or false/],
    ['SVC_LOG_LEVEL', 'loud', /SVC_LOG_LEVEL: expected one of fatal, error/],
    ['SVC_BODY_LIMIT', '0', /SVC_BODY_LIMIT: must be between 1/],
    ['SVC_REACTOR_TIMEOUT_MS', '0', /SVC_REACTOR_TIMEOUT_MS: must be between 1/],
    ['SVC_REACTOR_MEMORY_MB', '8', /SVC_REACTOR_MEMORY_MB: must be between 16 and 1024/],
  ])('rejects %s=%s', async (name, value, message) => {
    const error = await configError(resolveConfig({ env: { SVC_HOME: home, [name]: value }, cwd: dir }));
    expect(error.message).toMatch(message);
  });

  it('reads the reactor sandbox limits from env and file, and maps them onto the sandbox', async () => {
    const file = path.join(dir, 'config.json');
    await writeConfig(file, { reactorMemoryMb: 128 });
    const { config, sources } = await resolveConfig({
      env: { SVC_HOME: home, SVC_CONFIG: file, SVC_REACTOR_TIMEOUT_MS: '5000' },
      cwd: dir,
    });
    expect(config).toMatchObject({ reactorTimeoutMs: 5000, reactorMemoryMb: 128 });
    expect(sources).toMatchObject({ reactorTimeoutMs: 'env', reactorMemoryMb: 'file' });
    expect(limitsFromSettings(config)).toEqual({ timeoutMs: 5000, memoryBytes: 128 * 1024 * 1024 });
    await writeConfig(file, { reactorMemoryMb: '128' });
    await configError(resolveConfig({ env: { SVC_HOME: home, SVC_CONFIG: file }, cwd: dir }));
  });

  it('reads the default tenant from the file, SVC_TENANT before it, and refuses an empty one', async () => {
    const file = path.join(dir, 'config.json');
    await writeConfig(file, { tenant: ' Acme ' });
    const fromFile = await resolveConfig({ env: { SVC_HOME: home, SVC_CONFIG: file }, cwd: dir });
    expect(fromFile.config.tenant).toBe('Acme');
    expect(fromFile.sources.tenant).toBe('file');
    const fromEnv = await resolveConfig({
      env: { SVC_HOME: home, SVC_CONFIG: file, SVC_TENANT: 'Beta' },
      cwd: dir,
    });
    expect(fromEnv.config.tenant).toBe('Beta');
    await writeConfig(file, { tenant: '' });
    const error = await configError(resolveConfig({ env: { SVC_HOME: home, SVC_CONFIG: file }, cwd: dir }));
    expect(error.message).toMatch(/"tenant": expected a tenant id or name/);
  });

  it('resolves relative paths in flags and env against cwd, and in the file against the file', async () => {
    const other = path.join(dir, 'elsewhere');
    await mkdir(other);
    await writeConfig(path.join(other, 'svc.json'), { vaultPath: 'data/v.svc', home: '~/svc-home' });
    const { config, sources, configFile } = await resolveConfig({
      env: { SVC_CONFIG: path.join(other, 'svc.json'), SVC_KEY_FILE: 'keys/k' },
      cwd: dir,
    });
    expect(configFile).toEqual({ path: path.join(other, 'svc.json'), source: 'env', loaded: true });
    expect(config.vaultPath).toBe(path.join(other, 'data/v.svc'));
    expect(config.keyFile).toBe(path.join(dir, 'keys/k'));
    expect([config.home, sources.home]).toEqual([path.join(os.homedir(), 'svc-home'), 'file']);
  });

  it('lets --config beat SVC_CONFIG', async () => {
    await writeConfig(path.join(dir, 'a.json'), { port: 1 });
    await writeConfig(path.join(dir, 'b.json'), { port: 2 });
    const { config, configFile } = await resolveConfig({
      env: { SVC_CONFIG: path.join(dir, 'a.json') },
      flags: { config: 'b.json' },
      cwd: dir,
    });
    expect(config.port).toBe(2);
    expect(configFile.source).toBe('flag');
  });

  it('names an unknown key in the config file', async () => {
    await writeConfig(path.join(home, 'config.json'), { prot: 8080 });
    const error = await configError(resolveConfig({ env: { SVC_HOME: home }, cwd: dir }));
    expect(error.message).toContain('unknown key "prot"');
    expect(error.message).toContain(path.join(home, 'config.json'));
  });

  it('refuses secrets in the config file (they are env or flag only)', async () => {
    await writeConfig(path.join(home, 'config.json'), { vaultKey: 'abc' });
    const error = await configError(resolveConfig({ env: { SVC_HOME: home }, cwd: dir }));
    expect(error.message).toContain('unknown key "vaultKey"');
    expect(error.message).not.toContain('abc');
  });

  it.each([
    [{ port: '8080' }, /"port": expected a number, got the string "8080"/],
    [{ port: 1.5 }, /"port": must be a whole number/],
    [{ allowRemote: 'true' }, /"allowRemote": expected a boolean/],
    [{ home: 42 }, /"home": expected a string, got a number/],
    [{ logLevel: null }, /"logLevel": expected a string, got null/],
  ])('names the key with a bad type: %j', async (content, message) => {
    await writeConfig(path.join(home, 'config.json'), content);
    const error = await configError(resolveConfig({ env: { SVC_HOME: home }, cwd: dir }));
    expect(error.message).toMatch(message);
  });

  it('rejects a config file that is not a JSON object', async () => {
    await writeFile(path.join(home, 'config.json'), '{ port: 1 }');
    expect((await configError(resolveConfig({ env: { SVC_HOME: home }, cwd: dir }))).message).toMatch(
      /not valid JSON/,
    );
    await writeFile(path.join(home, 'config.json'), '[1]');
    expect((await configError(resolveConfig({ env: { SVC_HOME: home }, cwd: dir }))).message).toMatch(
      /expected a JSON object/,
    );
  });

  it('ignores a missing default config file but not a missing explicit one', async () => {
    const { configFile } = await resolveConfig({ env: { SVC_HOME: home }, cwd: dir });
    expect(configFile.loaded).toBe(false);
    const error = await configError(
      resolveConfig({ env: { SVC_CONFIG: path.join(dir, 'nope.json') }, cwd: dir }),
    );
    expect(error.message).toMatch(/nope\.json: file not found/);
  });

  it('validates flags passed by programmatic callers too', async () => {
    const error = await configError(resolveConfig({ env: {}, flags: { port: 70000 }, cwd: dir }));
    expect(error.message).toMatch(/--port/);
  });
});
