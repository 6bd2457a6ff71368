import { redactedDatabaseUrl } from '../backends/postgres/database-url.ts';

/**
 * Where a vault lives: the embedded file (sql.js in this process), or a PostgreSQL database that
 * several processes may serve at once. The configuration decides (`databaseUrl` set = PostgreSQL);
 * everything above the open handle works the same on both.
 */
export type VaultLocation =
  | { readonly backend: 'embedded'; readonly path: string }
  | { readonly backend: 'postgres'; readonly url: string };

export function vaultLocationOf(config: {
  readonly vaultPath: string;
  readonly databaseUrl: string | null;
}): VaultLocation {
  return config.databaseUrl === null
    ? { backend: 'embedded', path: config.vaultPath }
    : { backend: 'postgres', url: config.databaseUrl };
}

/** The location as it may be shown: the file's path, or the database URL without its password. */
export function describeVaultLocation(location: VaultLocation): string {
  return location.backend === 'embedded' ? location.path : redactedDatabaseUrl(location.url);
}
