import type { ApiClient } from '../../../client/api-client.ts';
import { answer } from '../../connection/answer.ts';
import type { VaultUpkeep } from '../contract.ts';

/** Vault upkeep through the operator routes of the server holding the vault. */
export function httpVaultUpkeep(api: ApiClient): VaultUpkeep {
  return {
    status: () => answer(api.GET('/operator/vault/status', {})),
    compact: () => answer(api.POST('/operator/vault/compact', {})),
    backup: (file, force) => answer(api.POST('/operator/vault/backup', { body: { file, force } })),
  };
}
