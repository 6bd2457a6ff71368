/**
 * What every operation of the token service works with, passed to each explicitly: the open vault,
 * the token crypto over the services instance's tenant keys, and the vault's read-audit batches.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.ts';
import type { VaultHandle } from '../vault/types.ts';
import { readAuditOf } from './read-audit.ts';
import type { ReadAudit } from './read-audit.ts';
import { TokenCrypto } from './token-crypto.ts';
import type { TenantKeys } from '../crypto/tenant-keys.ts';
import type { TokenRow } from './token-store.ts';

export interface TokenOperationDeps {
  readonly vault: VaultHandle;
  readonly crypto: TokenCrypto;
  readonly reads: ReadAudit;
}

export function tokenOperationDeps(vault: VaultHandle, keys: TenantKeys): TokenOperationDeps {
  return { vault, crypto: new TokenCrypto(keys), reads: readAuditOf(vault) };
}

/** Opens `row`'s data when called (only transforms that show data call it). */
export function dataOpener(deps: TokenOperationDeps, db: Kysely<Database>, row: TokenRow) {
  return async (): Promise<unknown> => deps.crypto.open(db, row.tenant_id, row.id, row.data);
}
