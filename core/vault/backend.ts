import { VaultError, isVaultError } from '../errors/catalogue.ts';
import { createVault, openVault } from './lifecycle.ts';
import { readPostgresVaultStatus } from '../backends/postgres/postgres-status.ts';
import { createPostgresVault, openPostgresVault } from '../backends/postgres/postgres-vault.ts';
import { readVaultStatus, vaultExists } from './status.ts';
import { describeVaultLocation, type VaultLocation } from './location.ts';
import type { CreateVaultOptions, OpenVaultOptions, VaultHandle } from './types.ts';
import type { VaultStatus } from './status-schema.ts';

export { describeVaultLocation, vaultLocationOf, type VaultLocation } from './location.ts';

/** Options for either backend; the file-only ones (`fs`, `limits`, snapshots) apply to the file. */
export type OpenAtOptions = Omit<OpenVaultOptions, 'path'>;
export type CreateAtOptions = Omit<CreateVaultOptions, 'path'>;

/**
 * An unreachable database at open says which database (password hidden) and what to check, in one
 * line; it stays SERVICE_UNAVAILABLE, the code for "try again later".
 */
function explainUnreachable(location: VaultLocation, err: unknown): unknown {
  if (location.backend !== 'postgres' || !isVaultError(err, 'SERVICE_UNAVAILABLE')) return err;
  const cause = (err.cause as { code?: unknown } | undefined)?.code;
  const reason = typeof cause === 'string' ? ` (${cause})` : '';
  return new VaultError(
    'SERVICE_UNAVAILABLE',
    `The database ${describeVaultLocation(location)} is unreachable${reason}; check that PostgreSQL runs and accepts connections at that address, then try again.`,
    { cause: err },
  );
}

/** Opens the vault at `location` with `options.key`; a wrong key is refused before anything changes. */
export async function openVaultAt(location: VaultLocation, options: OpenAtOptions): Promise<VaultHandle> {
  if (location.backend === 'embedded') return openVault({ ...options, path: location.path });
  try {
    return await openPostgresVault({
      url: location.url,
      key: options.key,
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    });
  } catch (err) {
    throw explainUnreachable(location, err);
  }
}

/**
 * Creates a vault at `location` (never over an existing one) and returns it open: a new vault file,
 * or on PostgreSQL the schema and a keyring wrapped by the root key in an empty database.
 */
export async function createVaultAt(location: VaultLocation, options: CreateAtOptions): Promise<VaultHandle> {
  if (location.backend === 'embedded') return createVault({ ...options, path: location.path });
  try {
    return await createPostgresVault({
      url: location.url,
      key: options.key,
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      ...(options.kdf === undefined ? {} : { kdf: options.kdf }),
    });
  } catch (err) {
    throw explainUnreachable(location, err);
  }
}

/** What is known without the key (header or keyring row, sizes), or null when there is no vault. */
export async function vaultStatusAt(location: VaultLocation): Promise<VaultStatus | null> {
  if (location.backend === 'embedded') {
    return (await vaultExists(location.path)) ? readVaultStatus(location.path) : null;
  }
  try {
    return await readPostgresVaultStatus(location.url);
  } catch (err) {
    throw explainUnreachable(location, err);
  }
}
