import type { ConfigFlags, ResolvedConfig } from '../../core/config/index.ts';
import { requireNoServer } from '../connection/connection.ts';
import { loadConfig } from '../runtime/config.ts';
import type { CliDeps } from '../runtime/deps.ts';
import { requireEmbedded } from './location.ts';

/** What a command that works on the vault file itself says when it cannot. */
export interface VaultFileCommand {
  /** `svc vault export`, named when the vault is in PostgreSQL. */
  readonly name: string;
  /** What to do instead with a PostgreSQL vault. */
  readonly instead: string;
  /** `Exporting the vault`, named when a server holds the vault. */
  readonly doing: string;
}

/**
 * The config of a command that works on the vault file itself: refused for a vault in PostgreSQL
 * and for a vault a server holds, before any key is asked for.
 */
export async function loadVaultFileConfig(
  deps: CliDeps,
  flags: ConfigFlags,
  command: VaultFileCommand,
): Promise<ResolvedConfig> {
  const resolved = await loadConfig(deps, flags);
  requireEmbedded(resolved, command.name, command.instead);
  await requireNoServer(resolved, command.doing);
  return resolved;
}
