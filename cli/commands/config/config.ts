import { Command } from 'commander';
import {
  CONFIG_ENV,
  CONFIG_KEYS,
  ENV_NAMES,
  SECRET_ENV,
  describeSecretEnv,
  envValue,
  type ConfigSource,
  type ResolvedConfig,
} from '../../../core/config/index.ts';
import { redactedDatabaseUrl } from '../../../core/backends/postgres/database-url.ts';
import { API_KEY_ENV, MODE_NAMES, reportConnection } from '../../connection/connection.ts';
import { commandOf, type Runner } from '../../program/command-kit.ts';
import { loadConfig } from '../../runtime/config.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import {
  addHomeOptions,
  addPathOptions,
  addServerOptions,
  commonOptionsFrom,
  type CommonOptions,
  type RawOptions,
} from '../../options/config-flags.ts';
import { writeTable } from '../../output/table.ts';
import { snakeCaseKeys, writeJson } from '../../output/write.ts';

export type ConfigOptions = CommonOptions;

export function newConfigCommand(
  deps: CliDeps,
  run: Runner<ConfigOptions> = (o) => runConfig(deps, o),
): Command {
  const command = new Command('config').description(
    'Show the effective configuration and where each value comes from (flags > env > config file > defaults)',
  );
  // The same setting flags as the commands that use them, so `svc config --port 0` previews their effect.
  addHomeOptions(command, deps);
  addPathOptions(command, deps);
  addServerOptions(command, deps);
  return command.action(async (...args: unknown[]) => {
    await run(commonOptionsFrom(commandOf(args).opts<RawOptions>()));
  });
}

/** JSON shape of `svc config --json`. Secrets appear only as "set via X" / "not set", never as values. */
export interface ConfigReport {
  readonly values: ResolvedConfig['config'];
  readonly sources: ResolvedConfig['sources'];
  readonly env: Readonly<Record<string, string>>;
  readonly configFile: ResolvedConfig['configFile'];
  readonly secrets: Readonly<Record<string, { readonly env: string; readonly set: boolean }>>;
}

/** The SMTP and database URLs may carry a password: `svc config` shows them with it replaced. */
function withoutCredentials(config: ResolvedConfig['config']): ResolvedConfig['config'] {
  const { smtpUrl, databaseUrl } = config;
  return {
    ...config,
    smtpUrl: smtpUrl === null ? null : redactedDatabaseUrl(smtpUrl),
    databaseUrl: databaseUrl === null ? null : redactedDatabaseUrl(databaseUrl),
  };
}

export function configReport(resolved: ResolvedConfig, env: CliDeps['env']): ConfigReport {
  const secrets: Record<string, { env: string; set: boolean }> = {};
  for (const [name, variable] of Object.entries(SECRET_ENV)) {
    secrets[name] = { env: variable, set: envValue(env, variable) !== undefined };
  }
  return {
    values: withoutCredentials(resolved.config),
    sources: resolved.sources,
    env: ENV_NAMES,
    configFile: resolved.configFile,
    secrets,
  };
}

function describeSource(resolved: ResolvedConfig, source: ConfigSource, envName: string): string {
  switch (source) {
    case 'flag':
      return 'flag';
    case 'env':
      return `env ${envName}`;
    case 'file':
      return `file ${resolved.configFile.path}`;
    case 'default':
      return 'default';
  }
}

export async function runConfig(deps: CliDeps, options: ConfigOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  if (options.json) {
    const connection = await reportConnection(deps, resolved);
    writeJson(
      deps.stdout,
      snakeCaseKeys({
        ...configReport(resolved, deps.env),
        connection: { mode: connection.mode, server: connection.serverUrl, apiKeySet: connection.apiKey },
      }),
    );
    return;
  }
  const shown = withoutCredentials(resolved.config);
  const rows = CONFIG_KEYS.map((key) => [
    key,
    String(shown[key]),
    describeSource(resolved, resolved.sources[key], ENV_NAMES[key]),
  ]);
  const file = resolved.configFile;
  const fileSource = file.source === 'env' ? `env ${CONFIG_ENV}` : file.source;
  rows.push(['configFile', file.path, `${fileSource}${file.loaded ? '' : ' (not found)'}`]);
  const secrets = describeSecretEnv(deps.env);
  const secretSource = (shown: string): string => (shown === '(not set)' ? '' : 'env');
  rows.push(['vaultKey', secrets.vaultKey, secretSource(secrets.vaultKey)]);
  rows.push(['vaultPassphrase', secrets.passphrase, secretSource(secrets.passphrase)]);
  rows.push(['newVaultPassphrase', secrets.newPassphrase, secretSource(secrets.newPassphrase)]);
  // Which way a data command would go now (svc status says more).
  const connection = await reportConnection(deps, resolved);
  rows.push([
    'apiKey',
    connection.apiKey ? `(set via ${API_KEY_ENV})` : '(not set)',
    connection.apiKey ? 'env' : '',
  ]);
  rows.push(['mode', MODE_NAMES[connection.mode], connection.serverUrl ?? '']);
  writeTable(deps, ['Setting', 'Value', 'Source'], rows);
}
