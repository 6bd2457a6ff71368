/** Configuration: one precedence everywhere (flags > environment > config file > defaults), and key sources. */
export {
  CONFIG_ENV,
  CONFIG_KEYS,
  ENV_NAMES,
  FIXED_DEFAULTS,
  LOG_LEVELS,
  defaultHome,
  expandPath,
  parseSetting,
  type ConfigFlags,
  type ConfigKey,
  type LogLevel,
  type SvcConfig,
} from './fields.ts';
export {
  envValue,
  flagName,
  resolveConfig,
  type ConfigFileInfo,
  type ConfigSource,
  type Env,
  type ResolveConfigOptions,
  type ResolvedConfig,
} from './resolve.ts';
export {
  MIN_PASSPHRASE_LENGTH,
  SECRET_ENV,
  describeSecretEnv,
  keyFromEnv,
  loadOrCreateKeyFile,
  resolveKeySource,
  resolveKeySourceWithOrigin,
  resolveNewPassphrase,
  type KeyKind,
  type KeySourceFlags,
  type KeySourceOptions,
  type NewPassphraseOptions,
  type ResolvedKeySource,
  type SecretInput,
} from './key-source.ts';
export {
  describeFinding,
  enforcePermissions,
  exposedSecretFiles,
  type PermissionFinding,
} from './file-permissions.ts';
export { writeConfigFileSettings } from './config-file.ts';
