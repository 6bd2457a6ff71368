import { resolveConfig, type ConfigFlags, type ResolvedConfig } from '../../core/config/index.ts';
import type { CliDeps } from './deps.ts';

/** The configuration as this process sees it: flags, then the injected env, then the file, then defaults. */
export function loadConfig(deps: CliDeps, flags: ConfigFlags): Promise<ResolvedConfig> {
  return resolveConfig({ flags, env: deps.env, cwd: deps.cwd });
}
