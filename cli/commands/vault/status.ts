import { Command } from 'commander';
import { describeHolder } from '../../../core/storage/lock.ts';
import type { VaultStatus } from '../../../core/vault/storage-contract.ts';
import { commandOf, type Runner } from '../../program/command-kit.ts';
import { loadConfig } from '../../runtime/config.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import {
  addHomeOptions,
  addPathOptions,
  commonOptionsFrom,
  type CommonOptions,
  type RawOptions,
} from '../../options/config-flags.ts';
import { vaultUpkeep } from '../../services/upkeep.ts';
import { writeRecord } from '../../output/table.ts';
import { formatBytes, snakeCaseKeys, writeJson } from '../../output/write.ts';

export type VaultStatusOptions = CommonOptions;

export function newVaultStatusCommand(
  deps: CliDeps,
  run: Runner<VaultStatusOptions> = (o) => runVaultStatus(deps, o),
): Command {
  const command = new Command('status').description(
    'Show the vault file (or database), its sizes, journal, key terms and lock holder (no key needed; through the server holding the vault when one runs)',
  );
  addHomeOptions(command, deps);
  addPathOptions(command, deps);
  return command.action(async (...args: unknown[]) => {
    await run(commonOptionsFrom(commandOf(args).opts<RawOptions>()));
  });
}

const unlockedBy = (status: VaultStatus): string =>
  status.keySource === 'passphrase' ? 'passphrase' : 'key (key file or SVC_VAULT_KEY)';

export function statusEntries(status: VaultStatus): [string, string][] {
  return [
    ['Path', status.path],
    ['Journal', status.journalPath],
    ['Vault id', status.vaultId],
    ['Created', status.createdAt],
    ['Format version', String(status.formatVersion)],
    ['Unlocked by', unlockedBy(status)],
    ['Key terms', status.keyTerms.join(', ')],
    [
      'Snapshot',
      `${formatBytes(status.snapshotBytes)}, sequence ${status.snapshotSequence}, written ${status.snapshotWrittenAt}`,
    ],
    ['Journal size', `${formatBytes(status.journalBytes)}, ${status.journalRecords} record(s)`],
    ['Lock holder', status.lockHolder === null ? 'none' : describeHolder(status.lockHolder)],
  ];
}

/** On PostgreSQL there is no snapshot, journal or lock: the database, its size and the keyring. */
function databaseStatusEntries(status: VaultStatus): [string, string][] {
  return [
    ['Database', status.path],
    ['Vault id', status.vaultId],
    ['Created', status.createdAt],
    ['Schema version', String(status.formatVersion)],
    ['Unlocked by', unlockedBy(status)],
    ['Key terms', status.keyTerms.join(', ')],
    ['Database size', formatBytes(status.snapshotBytes)],
  ];
}

export async function runVaultStatus(deps: CliDeps, options: VaultStatusOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  // Through the server holding the vault when one runs: it answers for the files it has open.
  const status = await (await vaultUpkeep(deps, resolved, {})).status();
  if (options.json) writeJson(deps.stdout, snakeCaseKeys(status));
  else if (resolved.config.databaseUrl !== null) writeRecord(deps, databaseStatusEntries(status));
  else writeRecord(deps, statusEntries(status));
}
