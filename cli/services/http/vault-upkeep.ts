import type { VaultStatus } from '../../../core/vault/storage-contract.ts';
import type { ApiClient } from '../../../client/api-client.ts';
import { answer } from '../../connection/answer.ts';
import type { ApiAnswer } from '../../connection/api-types.ts';
import type { VaultUpkeep } from '../contract.ts';

type ApiVaultStatus = ApiAnswer<'get', '/operator/vault/status'>;

/** The vault's status as core gives it (the API names its members in snake_case). */
function statusOf(body: ApiVaultStatus): VaultStatus {
  const holder = body.lock_holder;
  return {
    path: body.path,
    journalPath: body.journal_path,
    vaultId: body.vault_id,
    createdAt: body.created_at,
    formatVersion: body.format_version,
    keySource: body.key_source,
    keyTerms: body.key_terms,
    snapshotBytes: body.snapshot_bytes,
    snapshotSequence: body.snapshot_sequence,
    snapshotWrittenAt: body.snapshot_written_at,
    journalBytes: body.journal_bytes,
    journalRecords: body.journal_records,
    lockHolder:
      holder === null
        ? null
        : {
            pid: holder.pid,
            host: holder.host,
            startedAt: holder.started_at,
            ...(holder.url === undefined ? {} : { url: holder.url }),
          },
  };
}

/** Vault upkeep through the operator routes of the server holding the vault. */
export function httpVaultUpkeep(api: ApiClient): VaultUpkeep {
  return {
    status: async () => statusOf(await answer(api.GET('/operator/vault/status', {}))),
    compact: async () => statusOf(await answer(api.POST('/operator/vault/compact', {}))),
    backup: (file, force) => answer(api.POST('/operator/vault/backup', { body: { file, force } })),
  };
}
