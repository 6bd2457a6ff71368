import { Command } from 'commander';
import { ENV_NAMES, type ResolvedConfig } from '../../../core/config/index.ts';
import { commandOf, type Runner } from '../../program/command-kit.ts';
import { MODE_NAMES, reportConnection } from '../../connection/connection.ts';
import { loadConfig } from '../../runtime/config.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import {
  addVaultOptions,
  vaultOptionsFrom,
  type RawOptions,
  type VaultCommandOptions,
} from '../../options/config-flags.ts';
import { writeRecord } from '../../output/table.ts';
import { snakeCaseKeys, writeJson } from '../../output/write.ts';

export type StatusOptions = VaultCommandOptions;

export function newStatusCommand(
  deps: CliDeps,
  run: Runner<StatusOptions> = (o) => runStatus(deps, o),
): Command {
  const command = new Command('status').description(
    'Show where commands would act: the vault file, who holds it, the server and the mode (no key needed)',
  );
  addVaultOptions(command, deps);
  return command.action(async (...args: unknown[]) => {
    await run(vaultOptionsFrom(commandOf(args).opts<RawOptions>()));
  });
}

/** The tenant commands act in without --tenant, and where that choice comes from. */
function chosenTenant(resolved: ResolvedConfig): { text: string; from: string | null } {
  const { tenant } = resolved.config;
  const source = resolved.sources.tenant;
  if (tenant === null)
    return { text: "the vault's only tenant (none chosen; see svc tenant use)", from: null };
  const from =
    source === 'env'
      ? ENV_NAMES.tenant
      : source === 'file'
        ? `config file ${resolved.configFile.path}`
        : 'the --tenant flag';
  return { text: `${tenant} (${from})`, from };
}

export async function runStatus(deps: CliDeps, options: StatusOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  const report = await reportConnection(deps, resolved, options.key.apiKey);
  const tenant = chosenTenant(resolved);
  if (options.json) {
    writeJson(
      deps.stdout,
      snakeCaseKeys({ ...report, tenant: resolved.config.tenant, tenantFrom: tenant.from }),
    );
    return;
  }
  const entries: [string, string][] = [
    ['Vault', report.vaultPath],
    ['Locked by', report.lockedBy ?? 'nobody'],
    ['Server', report.serverUrl ?? 'none'],
    ['Mode', MODE_NAMES[report.mode]],
    ['Tenant', tenant.text],
  ];
  if (report.mode === 'local-server') {
    entries.push([
      'Operator credential',
      report.operatorCredential ? 'present (readable by you)' : 'missing',
    ]);
  }
  if (report.mode === 'remote') {
    entries.push(['API key', report.apiKey ? 'set' : 'not set']);
    entries.push(['Signed in as', report.signedInAs ?? 'nobody (svc auth login --server URL)']);
  }
  if (report.problem !== null) entries.push(['Problem', report.problem]);
  writeRecord(deps, entries);
}
