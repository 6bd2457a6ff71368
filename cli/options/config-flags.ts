import { InvalidArgumentError, Option, type Command } from 'commander';
import {
  LOG_LEVELS,
  parseSetting,
  type ConfigFlags,
  type ConfigKey,
  type KeySourceFlags,
  type SvcConfig,
} from '../../core/config/index.ts';
import { isVaultError } from '../../core/errors/catalogue.ts';
import type { CliDeps } from '../runtime/deps.ts';
import { completesWith } from './completion-values.ts';

/**
 * Shared flags. Every flag that sets a configuration value parses with the same parser as its
 * environment variable and config-file key, so `--port 70000` and `SVC_PORT=70000` fail alike
 * (the flag as a usage error, exit 2).
 */

function settingParser<K extends ConfigKey>(
  deps: CliDeps,
  key: K,
  flag: string,
): (text: string) => SvcConfig[K] {
  return (text) => {
    try {
      return parseSetting(key, text, flag, deps.cwd);
    } catch (error) {
      // A value that may carry a password is not echoed: our error (exit 2) stands as it is, since
      // commander's own message would repeat the argument.
      if (isVaultError(error) && key === 'databaseUrl') throw error;
      // Commander prefixes its own "option '--port <n>' argument 'x' is invalid."; keep only our reason.
      if (isVaultError(error)) {
        const reason = error.message.replace(`${flag}: `, '');
        throw new InvalidArgumentError(`${reason.charAt(0).toUpperCase()}${reason.slice(1)}.`);
      }
      throw error;
    }
  };
}

/** Raw commander values of the config flags; commander derives these camelCase names from the flags. */
interface RawConfigOptions {
  home?: string;
  config?: string;
  path?: string;
  keyFile?: string;
  host?: string;
  port?: number;
  allowRemote?: boolean;
  bodyLimit?: number;
  snapshotThreshold?: number;
  logLevel?: SvcConfig['logLevel'];
  allowInsecurePermissions?: boolean;
  rateLimit?: number;
  auditReadRetentionDays?: number;
  proxyAllow?: string;
  proxyCaFile?: string;
  proxyTimeoutMs?: number;
  reactorTimeoutMs?: number;
  reactorMemoryMb?: number;
  server?: string;
  database?: string;
}

/** `--home` and `--config`: every command resolves the configuration. */
export function addHomeOptions(command: Command, deps: CliDeps): Command {
  return command
    .addOption(
      new Option('--home <dir>', 'svc home folder (default ~/.svc; env SVC_HOME)').argParser(
        settingParser(deps, 'home', '--home'),
      ),
    )
    .option('--config <file>', 'config file (default <home>/config.json; env SVC_CONFIG)');
}

/** `--path`, `--database` and `--key-file`: where the vault and its key file are. */
export function addPathOptions(
  command: Command,
  deps: CliDeps,
  keyHelp = 'key file that unlocks the vault',
): Command {
  return command
    .addOption(
      new Option('--path <file>', 'vault file (default <home>/vault.svc; env SVC_VAULT_PATH)').argParser(
        settingParser(deps, 'vaultPath', '--path'),
      ),
    )
    .addOption(
      new Option(
        '--database <url>',
        'a PostgreSQL database holding the vault instead of the file, postgres://user@host/db (env SVC_DATABASE_URL)',
      ).argParser(settingParser(deps, 'databaseUrl', '--database')),
    )
    .addOption(
      new Option('--key-file <file>', `${keyHelp} (default <home>/vault.key; env SVC_KEY_FILE)`).argParser(
        settingParser(deps, 'keyFile', '--key-file'),
      ),
    );
}

/** Home, paths and the passphrase flags: commands that open or create a vault. */
export function addVaultOptions(command: Command, deps: CliDeps, keyHelp?: string): Command {
  addHomeOptions(command, deps);
  addPathOptions(command, deps, keyHelp);
  return command
    .addOption(
      new Option('--passphrase', 'use a passphrase (SVC_VAULT_PASSPHRASE, else a hidden prompt)').conflicts([
        'keyFile',
        'passphraseStdin',
      ]),
    )
    .addOption(
      new Option('--passphrase-stdin', 'read the passphrase from standard input').conflicts([
        'keyFile',
        'passphrase',
      ]),
    )
    .option(
      '--allow-insecure-permissions',
      'open the vault even if its key file is readable by others (env SVC_ALLOW_INSECURE_PERMISSIONS)',
    )
    .addOption(
      serverOption(
        deps,
        'go through this server instead of the local vault, with --api-key or the session of svc auth login',
      ),
    )
    .option('--api-key <key>', 'API key for --server (env SVC_API_KEY; the variable keeps it out of ps)');
}

/** `--server <url>`, parsed as SVC_SERVER is. */
export function serverOption(deps: CliDeps, help: string): Option {
  return new Option('--server <url>', `${help} (env SVC_SERVER)`).argParser(
    settingParser(deps, 'server', '--server'),
  );
}

/** Server settings: `svc start` and `svc serve`. */
export function addServerOptions(command: Command, deps: CliDeps): Command {
  return command
    .addOption(
      new Option('--host <address>', 'address to listen on (default 127.0.0.1; env SVC_HOST)').argParser(
        settingParser(deps, 'host', '--host'),
      ),
    )
    .addOption(
      new Option(
        '--port <number>',
        'port to listen on, 0 for any free port (default 8080; env SVC_PORT)',
      ).argParser(settingParser(deps, 'port', '--port')),
    )
    .option('--allow-remote', 'allow listening on a non-loopback address (env SVC_ALLOW_REMOTE)')
    .addOption(
      new Option(
        '--body-limit <bytes>',
        'largest request body (default 1048576; env SVC_BODY_LIMIT)',
      ).argParser(settingParser(deps, 'bodyLimit', '--body-limit')),
    )
    .addOption(
      new Option(
        '--snapshot-threshold <bytes>',
        'journal size that triggers a snapshot (default 64 MiB; env SVC_SNAPSHOT_THRESHOLD)',
      ).argParser(settingParser(deps, 'snapshotThresholdBytes', '--snapshot-threshold')),
    )
    .addOption(
      completesWith(
        new Option('--log-level <level>', 'log level (default info; env SVC_LOG_LEVEL)').argParser(
          settingParser(deps, 'logLevel', '--log-level'),
        ),
        LOG_LEVELS,
      ),
    )
    .addOption(
      new Option(
        '--rate-limit <n>',
        'requests per minute per API key, session or keyless proxy, 0 for none (default 60000; env SVC_RATE_LIMIT)',
      ).argParser(settingParser(deps, 'rateLimit', '--rate-limit')),
    )
    .addOption(
      new Option(
        '--audit-read-retention-days <n>',
        'prune audit entries of reads older than n days, daily; 0 keeps all (default 0; env SVC_AUDIT_READ_RETENTION_DAYS)',
      ).argParser(settingParser(deps, 'auditReadRetentionDays', '--audit-read-retention-days')),
    )
    .addOption(
      new Option(
        '--proxy-allow <list>',
        'host names and CIDR ranges proxies may reach despite the SSRF guard (env SVC_PROXY_ALLOW)',
      ).argParser(settingParser(deps, 'proxyAllow', '--proxy-allow')),
    )
    .addOption(
      new Option(
        '--proxy-ca-file <file>',
        'extra PEM CA trusted for proxy destinations (env SVC_PROXY_CA_FILE)',
      ).argParser(settingParser(deps, 'proxyCaFile', '--proxy-ca-file')),
    )
    .addOption(
      new Option(
        '--proxy-timeout-ms <ms>',
        'proxy destination timeout (default 25000; env SVC_PROXY_TIMEOUT_MS)',
      ).argParser(settingParser(deps, 'proxyTimeoutMs', '--proxy-timeout-ms')),
    )
    .addOption(
      new Option(
        '--reactor-timeout-ms <ms>',
        'time limit of one reactor or transform run (default 30000; env SVC_REACTOR_TIMEOUT_MS)',
      ).argParser(settingParser(deps, 'reactorTimeoutMs', '--reactor-timeout-ms')),
    )
    .addOption(
      new Option(
        '--reactor-memory-mb <n>',
        'memory of the reactor sandbox in MiB, 16 to 1024 (default 64; env SVC_REACTOR_MEMORY_MB)',
      ).argParser(settingParser(deps, 'reactorMemoryMb', '--reactor-memory-mb')),
    );
}

/** Picks the config flags out of a command's parsed options (absent flags stay absent: they do not override). */
export function configFlagsFrom(raw: RawConfigOptions): ConfigFlags {
  const flags: ConfigFlags = {};
  if (raw.home !== undefined) flags.home = raw.home;
  if (raw.config !== undefined) flags.config = raw.config;
  if (raw.path !== undefined) flags.vaultPath = raw.path;
  if (raw.keyFile !== undefined) flags.keyFile = raw.keyFile;
  if (raw.host !== undefined) flags.host = raw.host;
  if (raw.port !== undefined) flags.port = raw.port;
  if (raw.allowRemote !== undefined) flags.allowRemote = raw.allowRemote;
  if (raw.bodyLimit !== undefined) flags.bodyLimit = raw.bodyLimit;
  if (raw.snapshotThreshold !== undefined) flags.snapshotThresholdBytes = raw.snapshotThreshold;
  if (raw.logLevel !== undefined) flags.logLevel = raw.logLevel;
  if (raw.allowInsecurePermissions !== undefined)
    flags.allowInsecurePermissions = raw.allowInsecurePermissions;
  if (raw.rateLimit !== undefined) flags.rateLimit = raw.rateLimit;
  if (raw.auditReadRetentionDays !== undefined) flags.auditReadRetentionDays = raw.auditReadRetentionDays;
  if (raw.proxyAllow !== undefined) flags.proxyAllow = raw.proxyAllow;
  if (raw.proxyCaFile !== undefined) flags.proxyCaFile = raw.proxyCaFile;
  if (raw.proxyTimeoutMs !== undefined) flags.proxyTimeoutMs = raw.proxyTimeoutMs;
  if (raw.reactorTimeoutMs !== undefined) flags.reactorTimeoutMs = raw.reactorTimeoutMs;
  if (raw.reactorMemoryMb !== undefined) flags.reactorMemoryMb = raw.reactorMemoryMb;
  if (raw.server !== undefined) flags.server = raw.server;
  if (raw.database !== undefined) flags.databaseUrl = raw.database;
  return flags;
}

export function keyFlagsFrom(raw: { passphrase?: boolean; passphraseStdin?: boolean }): KeySourceFlags {
  return { passphrase: raw.passphrase === true, passphraseStdin: raw.passphraseStdin === true };
}

export type RawOptions = RawConfigOptions & {
  json?: boolean;
  apiKey?: string;
  passphrase?: boolean;
  passphraseStdin?: boolean;
  force?: boolean;
};

/** The options every data command shares, typed. */
export interface CommonOptions {
  readonly config: ConfigFlags;
  readonly json: boolean;
}

/** How a data command proves its right: the vault's key, or an API key for --server. */
export type CliKeyFlags = KeySourceFlags & { readonly apiKey?: string };

export interface VaultCommandOptions extends CommonOptions {
  readonly key: CliKeyFlags;
}

export function commonOptionsFrom(raw: RawOptions): CommonOptions {
  return { config: configFlagsFrom(raw), json: raw.json === true };
}

export function vaultOptionsFrom(raw: RawOptions): VaultCommandOptions {
  return {
    ...commonOptionsFrom(raw),
    key: raw.apiKey === undefined ? keyFlagsFrom(raw) : { ...keyFlagsFrom(raw), apiKey: raw.apiKey },
  };
}
