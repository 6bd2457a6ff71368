import { Command } from 'commander';
import { commandOf, type Runner } from '../../command-kit.ts';
import { loadConfig, withVault } from '../../context.ts';
import type { CliDeps } from '../../deps.ts';
import {
  addJsonOption,
  addVaultOptions,
  vaultOptionsFrom,
  type RawOptions,
  type VaultCommandOptions,
} from '../../options.ts';
import { writeJson, writeLine, writeTable } from '../../output.ts';

export type AppListOptions = VaultCommandOptions;

export function newAppListCommand(
  deps: CliDeps,
  run: Runner<AppListOptions> = (o) => runAppList(deps, o),
): Command {
  const command = new Command('list').description('List the applications in the vault');
  addVaultOptions(command, deps);
  addJsonOption(command);
  return command.action(async (...args: unknown[]) => {
    await run(vaultOptionsFrom(commandOf(args).opts<RawOptions>()));
  });
}

export async function runAppList(deps: CliDeps, options: AppListOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  const apps = await withVault(deps, resolved, options.key, (vault) => deps.tenancy.listApplications(vault));
  if (options.json) {
    writeJson(deps.stdout, apps);
    return;
  }
  if (apps.length === 0) {
    writeLine(deps.stderr, "No applications yet ('svc start' or 'svc serve' creates the default one).");
    return;
  }
  writeTable(
    deps,
    ['ID', 'Name', 'Type', 'Tenant'],
    apps.map((app) => [app.id, app.name, app.type, app.tenantId]),
  );
}
