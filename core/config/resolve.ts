import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { VaultError } from '../errors/catalogue.ts';
import {
  CONFIG_ENV,
  CONFIG_KEYS,
  ENV_NAMES,
  FIXED_DEFAULTS,
  checkFileSetting,
  defaultHome,
  expandPath,
  isConfigKey,
  parseSetting,
  type ConfigFlags,
  type ConfigKey,
  type SvcConfig,
} from './fields.ts';

/** Where an effective value came from. Precedence, highest first: flag, env, file, default. */
export type ConfigSource = 'flag' | 'env' | 'file' | 'default';

export type Env = Readonly<Record<string, string | undefined>>;

export interface ConfigFileInfo {
  /** The file consulted (the default `${home}/config.json` even when it does not exist). */
  readonly path: string;
  /** How the path was chosen: `--config`, SVC_CONFIG, or the default location. */
  readonly source: ConfigSource;
  /** False when the default file does not exist (an explicit file that is missing is an error). */
  readonly loaded: boolean;
}

export interface ResolvedConfig {
  readonly config: SvcConfig;
  readonly sources: Readonly<Record<ConfigKey, ConfigSource>>;
  readonly configFile: ConfigFileInfo;
}

export interface ResolveConfigOptions {
  readonly flags?: ConfigFlags;
  readonly env?: Env;
  /** Base for relative paths in flags and env vars. Default `process.cwd()`. */
  readonly cwd?: string;
}

/** Empty variables count as unset, as `SVC_PORT= svc start` is a common way to clear one. */
export function envValue(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

type Layer = Partial<Record<ConfigKey, SvcConfig[ConfigKey]>>;

const FLAG_NAMES: Record<ConfigKey, string> = {
  home: '--home',
  vaultPath: '--path',
  keyFile: '--key-file',
  host: '--host',
  port: '--port',
  allowRemote: '--allow-remote',
  bodyLimit: '--body-limit',
  snapshotThresholdBytes: '--snapshot-threshold',
  logLevel: '--log-level',
  smtpUrl: '--smtp-url',
  mailFrom: '--mail-from',
  publicUrl: '--public-url',
  allowInsecurePermissions: '--allow-insecure-permissions',
  rateLimit: '--rate-limit',
  auditReadRetentionDays: '--audit-read-retention-days',
  proxyAllow: '--proxy-allow',
  proxyCaFile: '--proxy-ca-file',
  proxyTimeoutMs: '--proxy-timeout-ms',
  reactorTimeoutMs: '--reactor-timeout-ms',
  reactorMemoryMb: '--reactor-memory-mb',
  tenant: '--tenant',
  server: '--server',
  databaseUrl: '--database',
};

export function flagName(key: ConfigKey): string {
  return FLAG_NAMES[key];
}

/**
 * Computes the effective configuration with one precedence for every setting:
 * flags > environment > config file > defaults. The config file is `--config`, else SVC_CONFIG, else
 * `${home}/config.json`, where `home` is taken from flags or env (the file may itself set `home`,
 * which then only moves the default vault and key file paths).
 */
export async function resolveConfig(options: ResolveConfigOptions = {}): Promise<ResolvedConfig> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const flags = options.flags ?? {};

  const fromFlags = flagLayer(flags, cwd);
  const fromEnv = envLayer(env, cwd);

  const preliminaryHome = (fromFlags.home ?? fromEnv.home ?? defaultHome()) as string;
  const configFile = locateConfigFile(flags, env, cwd, preliminaryHome);
  const fromFile = await fileLayer(configFile);

  const sources = {} as Record<ConfigKey, ConfigSource>;
  const values: Layer = {};
  const pick = (key: ConfigKey, fallback: () => SvcConfig[ConfigKey]): void => {
    for (const [layer, source] of [
      [fromFlags, 'flag'],
      [fromEnv, 'env'],
      [fromFile.layer, 'file'],
    ] as const) {
      const value = layer[key];
      if (value !== undefined) {
        values[key] = value;
        sources[key] = source;
        return;
      }
    }
    values[key] = fallback();
    sources[key] = 'default';
  };

  pick('home', defaultHome);
  const home = values.home as string;
  pick('vaultPath', () => path.join(home, 'vault.svc'));
  pick('keyFile', () => path.join(home, 'vault.key'));
  for (const key of CONFIG_KEYS) {
    if (key === 'home' || key === 'vaultPath' || key === 'keyFile') continue;
    pick(key, () => FIXED_DEFAULTS[key]);
  }

  return {
    // Every key was picked above, each from a layer that holds its own type.
    config: values as SvcConfig,
    sources,
    configFile: { path: configFile.path, source: configFile.source, loaded: fromFile.loaded },
  };
}

function flagLayer(flags: ConfigFlags, cwd: string): Layer {
  const layer: Layer = {};
  for (const key of CONFIG_KEYS) {
    const value = flags[key];
    if (value === undefined) continue;
    // Flags arrive typed from the CLI, but a programmatic caller may pass anything: check the same way.
    layer[key] = checkFileSetting(key, value, FLAG_NAMES[key], cwd);
  }
  return layer;
}

function envLayer(env: Env, cwd: string): Layer {
  const layer: Layer = {};
  for (const key of CONFIG_KEYS) {
    const text = envValue(env, ENV_NAMES[key]);
    if (text !== undefined) layer[key] = parseSetting(key, text, ENV_NAMES[key], cwd);
  }
  return layer;
}

interface LocatedFile {
  readonly path: string;
  readonly source: ConfigSource;
}

function locateConfigFile(flags: ConfigFlags, env: Env, cwd: string, home: string): LocatedFile {
  if (flags.config !== undefined && flags.config !== '') {
    return { path: expandPath(flags.config, cwd), source: 'flag' };
  }
  const fromEnv = envValue(env, CONFIG_ENV);
  if (fromEnv !== undefined) return { path: expandPath(fromEnv, cwd), source: 'env' };
  return { path: path.join(home, 'config.json'), source: 'default' };
}

async function fileLayer(file: LocatedFile): Promise<{ layer: Layer; loaded: boolean }> {
  let text: string;
  try {
    text = await readFile(file.path, 'utf8');
  } catch (error) {
    if (isMissing(error) && file.source === 'default') return { layer: {}, loaded: false };
    const reason = isMissing(error) ? 'file not found' : 'cannot be read';
    throw new VaultError('CONFIG_INVALID', `config file ${file.path}: ${reason}`, { cause: error });
  }

  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new VaultError('CONFIG_INVALID', `config file ${file.path}: not valid JSON`, { cause: error });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new VaultError('CONFIG_INVALID', `config file ${file.path}: expected a JSON object`);
  }

  // Relative paths in the file are relative to the file, so the file means the same from any cwd.
  const baseDir = path.dirname(file.path);
  const layer: Layer = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (!isConfigKey(key)) {
      throw new VaultError(
        'CONFIG_INVALID',
        `config file ${file.path}: unknown key "${key}" (known keys: ${CONFIG_KEYS.join(', ')})`,
      );
    }
    layer[key] = checkFileSetting(key, value, `config file ${file.path}: "${key}"`, baseDir);
  }
  return { layer, loaded: true };
}

function isMissing(error: unknown): boolean {
  return error instanceof Error && 'code' in error && (error.code === 'ENOENT' || error.code === 'ENOTDIR');
}
