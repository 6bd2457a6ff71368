import { Command } from 'commander';
import { describeHolder } from '../../../core/backends/embedded/lock.ts';
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
import type { VaultStatus } from '../../services/contract.ts';
import { vaultUpkeep } from '../../services/upkeep.ts';
import { writeRecord } from '../../output/table.ts';
import { formatBytes, writeJson } from '../../output/write.ts';

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
  status.key_source === 'passphrase' ? 'passphrase' : 'key (key file or SVC_VAULT_KEY)';

export function statusEntries(status: VaultStatus): [string, string][] {
  return [
    ['Path', status.path],
    ['Journal', status.journal_path],
    ['Vault id', status.vault_id],
    ['Created', status.created_at],
    ['Format version', String(status.format_version)],
    ['Unlocked by', unlockedBy(status)],
    ['Key terms', status.key_terms.join(', ')],
    [
      'Snapshot',
      `${formatBytes(status.snapshot_bytes)}, sequence ${status.snapshot_sequence}, written ${status.snapshot_written_at}`,
    ],
    ['Journal size', `${formatBytes(status.journal_bytes)}, ${status.journal_records} record(s)`],
    [
      'Lock holder',
      status.lock_holder === null
        ? 'none'
        : describeHolder(status.lock_holder, status.lock_holder.started_at),
    ],
    ...headroomEntries(status.headroom),
  ];
}

type Headroom = VaultStatus['headroom'];

const percent = (used: number): string => `${Math.round(used * 100)} %`;

/** A gauge's share, marked once it is at the share the server warns at. */
const shareOf = (used: number, headroom: Headroom): string =>
  used >= headroom.warn_at ? `${percent(used)}, near the limit` : percent(used);

/** The database's size against its limit and the disk's free space against the reserve. */
export function headroomEntries(headroom: Headroom): [string, string][] {
  const { database, disk } = headroom;
  const size =
    database.bytes === null ? 'unknown while no server holds the vault' : formatBytes(database.bytes);
  const limit =
    database.limit_bytes === null
      ? 'no limit on PostgreSQL'
      : database.used === null
        ? `limit ${formatBytes(database.limit_bytes)}`
        : `of its ${formatBytes(database.limit_bytes)} limit (${shareOf(database.used, headroom)})`;
  const entries: [string, string][] = [['Database size', `${size}, ${limit}`]];
  if (disk !== null) {
    const taken = disk.used === null ? '' : `; ${shareOf(disk.used, headroom)} of the usable space taken`;
    entries.push([
      'Disk',
      `${formatBytes(disk.free_bytes)} free of ${formatBytes(disk.total_bytes)}, ${formatBytes(disk.reserve_bytes)} kept in reserve${taken}`,
    ]);
  }
  return entries;
}

/** On PostgreSQL there is no snapshot, journal or lock: the database, its size and the keyring. */
function databaseStatusEntries(status: VaultStatus): [string, string][] {
  return [
    ['Database', status.path],
    ['Vault id', status.vault_id],
    ['Created', status.created_at],
    ['Schema version', String(status.format_version)],
    ['Unlocked by', unlockedBy(status)],
    ['Key terms', status.key_terms.join(', ')],
    ...headroomEntries(status.headroom),
  ];
}

export async function runVaultStatus(deps: CliDeps, options: VaultStatusOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  // Through the server holding the vault when one runs: it answers for the files it has open.
  const status = await (await vaultUpkeep(deps, resolved, {})).status();
  if (options.json) writeJson(deps.stdout, status);
  else if (resolved.config.databaseUrl !== null) writeRecord(deps, databaseStatusEntries(status));
  else writeRecord(deps, statusEntries(status));
}
