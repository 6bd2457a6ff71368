export { createVault, openVault } from './lifecycle.ts';
export {
  createVaultAt,
  describeVaultLocation,
  openVaultAt,
  vaultLocationOf,
  vaultStatusAt,
} from './backend.ts';
export type { CreateAtOptions, OpenAtOptions, VaultLocation } from './backend.ts';
export { backupVault, restoreVault, rekeyVault } from '../backends/embedded/maintenance.ts';
export type { BackupOptions, RestoreOptions, RekeyOptions } from '../backends/embedded/maintenance.ts';
export { readVaultStatus, vaultExists } from './status.ts';
export { ManualClock, systemClock } from './clock.ts';
export type { EmbeddedVault } from '../backends/embedded/embedded-vault.ts';
export type * from './types.ts';
