import os from 'node:os';
import path from 'node:path';
import { VaultError } from '../errors/catalogue.ts';
import { parseAllowList } from '../outbound/address-policy.ts';
import { DEFAULT_DESTINATION_TIMEOUT_MS, MAX_DESTINATION_TIMEOUT_MS } from '../outbound/settings.ts';
import {
  DEFAULT_SANDBOX_MEMORY_BYTES,
  DEFAULT_SANDBOX_TIMEOUT_MS,
  MAX_SANDBOX_MEMORY_MB,
  MAX_SANDBOX_TIMEOUT_MS,
  MIN_SANDBOX_MEMORY_MB,
} from '../sandbox/limits.ts';

/**
 * The settings of svc vault and how each is parsed. One table drives flags, environment variables and
 * the config file, so a value is validated the same way wherever it comes from.
 */

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface SvcConfig {
  /** Folder holding the vault, its key file and config.json. */
  readonly home: string;
  readonly vaultPath: string;
  readonly keyFile: string;
  readonly host: string;
  /** 0 asks the OS for any free port. */
  readonly port: number;
  /** Permits binding to a non-loopback address. */
  readonly allowRemote: boolean;
  /** Largest accepted request body, in bytes. */
  readonly bodyLimit: number;
  /** Journal size that triggers a snapshot, in bytes. */
  readonly snapshotThresholdBytes: number;
  readonly logLevel: LogLevel;
  /** SMTP server for invitation mail (`smtp://user:pass@host:port`, `smtps://…`); null = outbox folder. */
  readonly smtpUrl: string | null;
  /** Sender of invitation mail. */
  readonly mailFrom: string;
  /** Public base URL of the server, for links in mail; null = the URL the server listens on. */
  readonly publicUrl: string | null;
  /** Open a vault even when its key file is readable by group or others (otherwise refused). */
  readonly allowInsecurePermissions: boolean;
  /** Requests per minute per API key, session or keyless proxy; 0 turns the limit off. */
  readonly rateLimit: number;
  /** A serving vault prunes audit entries of reads older than this many days, daily; 0 keeps them all. */
  readonly auditReadRetentionDays: number;
  /** Host names and CIDR ranges outbound requests may reach despite the address policy (comma-separated). */
  readonly proxyAllow: string;
  /** Extra PEM CA bundle trusted for outbound requests besides the system's; null = none. */
  readonly proxyCaFile: string | null;
  /** Outbound connect/response timeout, in milliseconds. */
  readonly proxyTimeoutMs: number;
  /** Wall-clock limit of one reactor or proxy-transform run, in milliseconds. */
  readonly reactorTimeoutMs: number;
  /** Fixed memory of the sandbox that runs reactor and transform code, in MiB. */
  readonly reactorMemoryMb: number;
  /** Tenant the CLI acts in when a command gets no `--tenant` (an id or a name); null = the vault's only tenant. */
  readonly tenant: string | null;
  /** A server the CLI's data commands go through (with an API key) instead of the local vault; null = the local vault. */
  readonly server: string | null;
  /**
   * A PostgreSQL database holding the vault (`postgres://user@host:5432/db?sslmode=…`) instead of the
   * embedded file at `vaultPath`; null = the embedded file. May carry a password: shown redacted.
   */
  readonly databaseUrl: string | null;
}

export type ConfigKey = keyof SvcConfig;

/** Flags carry already-typed values (the CLI parses them with the same parsers as below). */
export type ConfigFlags = { -readonly [K in ConfigKey]?: SvcConfig[K] } & {
  /** `--config`: explicit config file. */
  config?: string;
};

export const ENV_NAMES = {
  home: 'SVC_HOME',
  vaultPath: 'SVC_VAULT_PATH',
  keyFile: 'SVC_KEY_FILE',
  host: 'SVC_HOST',
  port: 'SVC_PORT',
  allowRemote: 'SVC_ALLOW_REMOTE',
  bodyLimit: 'SVC_BODY_LIMIT',
  snapshotThresholdBytes: 'SVC_SNAPSHOT_THRESHOLD',
  logLevel: 'SVC_LOG_LEVEL',
  smtpUrl: 'SVC_SMTP_URL',
  mailFrom: 'SVC_MAIL_FROM',
  publicUrl: 'SVC_PUBLIC_URL',
  allowInsecurePermissions: 'SVC_ALLOW_INSECURE_PERMISSIONS',
  rateLimit: 'SVC_RATE_LIMIT',
  auditReadRetentionDays: 'SVC_AUDIT_READ_RETENTION_DAYS',
  proxyAllow: 'SVC_PROXY_ALLOW',
  proxyCaFile: 'SVC_PROXY_CA_FILE',
  proxyTimeoutMs: 'SVC_PROXY_TIMEOUT_MS',
  reactorTimeoutMs: 'SVC_REACTOR_TIMEOUT_MS',
  reactorMemoryMb: 'SVC_REACTOR_MEMORY_MB',
  tenant: 'SVC_TENANT',
  server: 'SVC_SERVER',
  databaseUrl: 'SVC_DATABASE_URL',
} as const satisfies Record<ConfigKey, string>;

export const CONFIG_ENV = 'SVC_CONFIG';

/** Stable display order (also the order of `svc config`). */
export const CONFIG_KEYS: readonly ConfigKey[] = [
  'home',
  'vaultPath',
  'keyFile',
  'host',
  'port',
  'allowRemote',
  'bodyLimit',
  'snapshotThresholdBytes',
  'logLevel',
  'smtpUrl',
  'mailFrom',
  'publicUrl',
  'allowInsecurePermissions',
  'rateLimit',
  'auditReadRetentionDays',
  'proxyAllow',
  'proxyCaFile',
  'proxyTimeoutMs',
  'reactorTimeoutMs',
  'reactorMemoryMb',
  'tenant',
  'server',
  'databaseUrl',
];

const MIB = 1024 * 1024;

/** Defaults that do not depend on another setting (paths derive from `home`). */
export const FIXED_DEFAULTS = {
  host: '127.0.0.1',
  port: 8080,
  allowRemote: false,
  bodyLimit: MIB,
  snapshotThresholdBytes: 64 * MIB,
  logLevel: 'info',
  smtpUrl: null,
  mailFrom: 'svc vault <svc@localhost>',
  publicUrl: null,
  allowInsecurePermissions: false,
  rateLimit: 60_000,
  auditReadRetentionDays: 0,
  proxyAllow: '',
  proxyCaFile: null,
  proxyTimeoutMs: DEFAULT_DESTINATION_TIMEOUT_MS,
  reactorTimeoutMs: DEFAULT_SANDBOX_TIMEOUT_MS,
  reactorMemoryMb: DEFAULT_SANDBOX_MEMORY_BYTES / (1024 * 1024),
  tenant: null,
  server: null,
  databaseUrl: null,
} as const satisfies Partial<SvcConfig>;

export function defaultHome(): string {
  return path.join(os.homedir(), '.svc');
}

function invalid(where: string, message: string): VaultError {
  return new VaultError('CONFIG_INVALID', `${where}: ${message}`);
}

/** A leading `~` means the user's home folder, also in env vars and config.json where no shell expands it. */
export function expandPath(value: string, baseDir: string): string {
  const expanded =
    value === '~' ? os.homedir() : value.startsWith('~/') ? path.join(os.homedir(), value.slice(2)) : value;
  return path.resolve(baseDir, expanded);
}

function parseInteger(text: string, where: string, min: number, max: number): number {
  if (!/^\d+$/.test(text.trim())) throw invalid(where, `expected a whole number, got "${text}"`);
  const value = Number(text.trim());
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw invalid(where, `must be between ${min} and ${max}, got ${text.trim()}`);
  }
  return value;
}

function checkInteger(value: number, where: string, min: number, max: number): number {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw invalid(where, `must be a whole number between ${min} and ${max}, got ${value}`);
  }
  return value;
}

function parseBoolean(text: string, where: string): boolean {
  const normalised = text.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(normalised)) return true;
  if (['0', 'false', 'no', 'off'].includes(normalised)) return false;
  throw invalid(where, `expected true or false, got "${text}"`);
}

function checkLogLevel(text: string, where: string): LogLevel {
  const found = LOG_LEVELS.find((level) => level === text.trim().toLowerCase());
  if (found === undefined) throw invalid(where, `expected one of ${LOG_LEVELS.join(', ')}, got "${text}"`);
  return found;
}

function checkHost(text: string, where: string): string {
  const host = text.trim();
  if (host === '' || /[\s/]/.test(host))
    throw invalid(where, `expected a host name or IP address, got "${text}"`);
  return host;
}

/** Never echoes the value: an SMTP URL may carry a password. */
function checkUrl(text: string, where: string, protocols: readonly string[]): string {
  const expected = protocols.map((p) => `${p}//…`).join(' or ');
  let parsed: URL;
  try {
    parsed = new URL(text.trim());
  } catch {
    throw invalid(where, `not a URL; expected ${expected}`);
  }
  if (!protocols.includes(parsed.protocol)) throw invalid(where, `must start with ${expected}`);
  return text.trim();
}

const MAX_PORT = 65535;
const MAX_BYTES = Number.MAX_SAFE_INTEGER;
/** A million requests a minute is far beyond what one process serves: a typo, not a setting. */
const MAX_RATE_LIMIT = 1_000_000;
/** A century. */
const MAX_RETENTION_DAYS = 36_500;

type IntegerKey =
  | 'port'
  | 'rateLimit'
  | 'auditReadRetentionDays'
  | 'bodyLimit'
  | 'snapshotThresholdBytes'
  | 'proxyTimeoutMs'
  | 'reactorTimeoutMs'
  | 'reactorMemoryMb';

/** The whole-number settings and the range each may take, given as text or in config.json. */
const INTEGER_RANGES: Readonly<Record<IntegerKey, readonly [min: number, max: number]>> = {
  port: [0, MAX_PORT],
  rateLimit: [0, MAX_RATE_LIMIT],
  auditReadRetentionDays: [0, MAX_RETENTION_DAYS],
  bodyLimit: [1, MAX_BYTES],
  snapshotThresholdBytes: [1, MAX_BYTES],
  proxyTimeoutMs: [1, MAX_DESTINATION_TIMEOUT_MS],
  reactorTimeoutMs: [1, MAX_SANDBOX_TIMEOUT_MS],
  reactorMemoryMb: [MIN_SANDBOX_MEMORY_MB, MAX_SANDBOX_MEMORY_MB],
};

const isIntegerKey = (key: ConfigKey): key is IntegerKey => Object.hasOwn(INTEGER_RANGES, key);

/**
 * Parses a setting given as text (a flag or an environment variable). `where` names the origin in
 * error messages, e.g. "SVC_PORT" or "--port"; relative paths resolve against `baseDir`.
 */
export function parseSetting<K extends ConfigKey>(
  key: K,
  text: string,
  where: string,
  baseDir: string,
): SvcConfig[K] {
  return parseAny(key, text, where, baseDir) as SvcConfig[K];
}

function parseAny(key: ConfigKey, text: string, where: string, baseDir: string): SvcConfig[ConfigKey] {
  if (isIntegerKey(key)) return parseInteger(text, where, ...INTEGER_RANGES[key]);
  switch (key) {
    case 'home':
    case 'vaultPath':
    case 'keyFile':
      if (text.trim() === '') throw invalid(where, 'expected a path, got an empty value');
      return expandPath(text, baseDir);
    case 'host':
      return checkHost(text, where);
    case 'allowRemote':
    case 'allowInsecurePermissions':
      return parseBoolean(text, where);
    case 'logLevel':
      return checkLogLevel(text, where);
    case 'smtpUrl':
      return checkUrl(text, where, ['smtp:', 'smtps:']);
    case 'publicUrl':
    case 'server':
      return checkUrl(text, where, ['http:', 'https:']).replace(/\/+$/, '');
    case 'databaseUrl':
      return checkUrl(text, where, ['postgres:', 'postgresql:']);
    case 'mailFrom':
      if (text.trim() === '') throw invalid(where, 'expected a sender address, got an empty value');
      return text.trim();
    case 'proxyAllow':
      try {
        return parseAllowList(text).text;
      } catch (error) {
        throw invalid(where, (error as Error).message);
      }
    case 'proxyCaFile':
      if (text.trim() === '') throw invalid(where, 'expected a path, got an empty value');
      return expandPath(text, baseDir);
    case 'tenant':
      if (text.trim() === '') throw invalid(where, 'expected a tenant id or name, got an empty value');
      return text.trim();
  }
}

/**
 * Checks a value read from config.json, where JSON already gives numbers and booleans: a string for
 * `port` is a type error there, not something to coerce.
 */
export function checkFileSetting(
  key: ConfigKey,
  value: unknown,
  where: string,
  baseDir: string,
): SvcConfig[ConfigKey] {
  const expect = (type: 'string' | 'number' | 'boolean'): void => {
    if (typeof value !== type) throw invalid(where, `expected a ${type}, got ${describe(value)}`);
  };
  if (isIntegerKey(key)) {
    expect('number');
    return checkInteger(value as number, where, ...INTEGER_RANGES[key]);
  }
  switch (key) {
    case 'home':
    case 'vaultPath':
    case 'keyFile':
    case 'host':
    case 'logLevel':
    case 'smtpUrl':
    case 'publicUrl':
    case 'server':
    case 'databaseUrl':
    case 'mailFrom':
    case 'proxyAllow':
    case 'proxyCaFile':
    case 'tenant':
      expect('string');
      return parseAny(key, value as string, where, baseDir);
    case 'allowRemote':
    case 'allowInsecurePermissions':
      expect('boolean');
      return value as boolean;
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string "${value}"`;
  return `a ${typeof value}`;
}

export function isConfigKey(key: string): key is ConfigKey {
  return (CONFIG_KEYS as readonly string[]).includes(key);
}
