import { Command } from 'commander';
import { parseSetting } from '../../../core/config/index.ts';
import { describeVaultLocation } from '../../../core/vault/location.ts';
import { commandOf, type Runner } from '../../program/command-kit.ts';
import { loadVaultFileConfig } from '../../local-vault/vault-file-config.ts';
import { keyForVault, openWithKey } from '../../local-vault/open.ts';
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

export type VaultExportOptions = VaultCommandOptions & { readonly to: string };

export function newVaultExportCommand(
  deps: CliDeps,
  run: Runner<VaultExportOptions> = (o) => runVaultExport(deps, o),
): Command {
  const command = new Command('export')
    .description(
      'Copy the embedded vault into an empty PostgreSQL database (same key, keys, tokens and audit chains)',
    )
    .requiredOption(
      '--to <url>',
      'the database: postgres://user@host:5432/db (never printed with its password)',
    );
  addVaultOptions(command, deps);
  return command.action(async (...args: unknown[]) => {
    const raw = commandOf(args).opts<RawOptions & { to: string }>();
    await run({ ...vaultOptionsFrom(raw), to: raw.to });
  });
}

export async function runVaultExport(deps: CliDeps, options: VaultExportOptions): Promise<void> {
  // Checked like the setting, and never echoed: the URL may carry a password.
  const url = parseSetting('databaseUrl', options.to, '--to', deps.cwd) ?? options.to;
  const resolved = await loadVaultFileConfig(deps, options.config, {
    name: 'svc vault export',
    instead: 'unset --database / SVC_DATABASE_URL to export the vault file.',
    doing: 'Exporting the vault',
  });
  const to = describeVaultLocation({ backend: 'postgres', url });
  const { exportToPostgres } = await import('../../../core/vault/export-to-postgres.ts');
  const { key } = await keyForVault(deps, resolved, options.key);
  const vault = await openWithKey(deps, resolved, key);
  const progress = runningProgress(deps, 'rows');
  let report;
  try {
    report = await exportToPostgres({
      source: vault,
      sourcePath: resolved.config.vaultPath,
      key,
      url,
      clock: deps.clock,
      onProgress: (copied, total) => progress.report(copied, total),
    });
  } finally {
    progress.stop();
    // Nothing was written to the file: closing it writes no snapshot.
    await vault.close();
  }
  if (options.json) {
    writeJson(
      deps.stdout,
      snakeCaseKeys({
        from: resolved.config.vaultPath,
        to,
        vaultId: report.vaultId,
        rows: report.rows,
        chains: chainsJson(report),
      }),
    );
    return;
  }
  writeLine(deps.stdout, `Exported ${resolved.config.vaultPath} to ${to}: ${copySummary(report)}`);
  writeLine(
    deps.stdout,
    `The same key opens it there: serve it with --database (or SVC_DATABASE_URL). The file is unchanged.`,
  );
}
