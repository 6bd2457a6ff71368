import { Command, Option } from 'commander';
import { parseSetting } from '../../../core/config/index.ts';
import { describeVaultLocation } from '../../../core/vault/location.ts';
import { commandOf, type Runner } from '../../program/command-kit.ts';
import { markDestructive, yesFrom } from '../../program/confirmation.ts';
import { ensurePrivateDir } from '../../local-vault/location.ts';
import { loadVaultFileConfig } from '../../local-vault/vault-file-config.ts';
import { keyForVault } from '../../local-vault/open.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import {
  addVaultOptions,
  vaultOptionsFrom,
  type RawOptions,
  type VaultCommandOptions,
} from '../../options/config-flags.ts';
import { snakeCaseKeys, writeJson, writeLine } from '../../output/write.ts';
import { runningProgress } from '../../output/progress.ts';
import { chainsJson, copySummary } from './copy-summary.ts';
import { confirmReplace } from './restore.ts';

export type VaultImportOptions = VaultCommandOptions & { readonly from: string; readonly force: boolean };

export function newVaultImportCommand(
  deps: CliDeps,
  run: Runner<VaultImportOptions> = (o) => runVaultImport(deps, o),
): Command {
  const command = new Command('import')
    .description(
      'Copy a vault held in PostgreSQL into a new vault file at the vault path (same key, keys, tokens and audit chains)',
    )
    .requiredOption(
      '--from <url>',
      'the database: postgres://user@host:5432/db (never printed with its password)',
    )
    .addOption(new Option('--force', 'the same as --yes (kept for scripts)').hideHelp());
  markDestructive(command, 'replacing the vault file', {
    verb: 'replace an existing vault file',
    when: 'when-replacing',
  });
  addVaultOptions(command, deps);
  return command.action(async (...args: unknown[]) => {
    const raw = commandOf(args).opts<RawOptions & { from: string }>();
    await run({ ...vaultOptionsFrom(raw), from: raw.from, force: raw.force === true || yesFrom(args) });
  });
}

export async function runVaultImport(deps: CliDeps, options: VaultImportOptions): Promise<void> {
  // Checked like the setting, and never echoed: the URL may carry a password.
  const url = parseSetting('databaseUrl', options.from, '--from', deps.cwd) ?? options.from;
  const resolved = await loadVaultFileConfig(deps, options.config, {
    name: 'svc vault import',
    instead: 'unset --database / SVC_DATABASE_URL to import into the vault file at the vault path.',
    doing: 'Importing a vault',
  });
  const { vaultPath } = resolved.config;
  const from = describeVaultLocation({ backend: 'postgres', url });
  const exists = await deps.vault.vaultExists(vaultPath);
  if (exists && !options.force) await confirmReplace(deps, vaultPath, from);
  // The database's keyring says which kind of key it takes (a passphrase is asked for only then).
  const { key } = await keyForVault(
    deps,
    { ...resolved, config: { ...resolved.config, databaseUrl: url } },
    options.key,
  );
  await ensurePrivateDir(vaultPath);
  const { importFromPostgres } = await import('../../../core/vault/import-from-postgres.ts');
  const progress = runningProgress(deps, 'rows');
  let report;
  try {
    report = await importFromPostgres({
      url,
      path: vaultPath,
      key,
      replace: exists,
      clock: deps.clock,
      onProgress: (copied, total) => progress.report(copied, total),
    });
  } finally {
    progress.stop();
  }
  if (options.json) {
    writeJson(
      deps.stdout,
      snakeCaseKeys({
        from,
        to: vaultPath,
        vaultId: report.vaultId,
        replaced: exists,
        rows: report.rows,
        chains: chainsJson(report),
      }),
    );
    return;
  }
  writeLine(deps.stdout, `Imported ${from} into ${vaultPath}: ${copySummary(report)}`);
  writeLine(
    deps.stdout,
    `The same key opens it: serve it without --database (or SVC_DATABASE_URL). The database is unchanged.`,
  );
}
