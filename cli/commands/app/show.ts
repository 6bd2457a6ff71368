import { Command } from 'commander';
import { commandOf, type Runner } from '../../program/command-kit.ts';
import { loadConfig } from '../../runtime/config.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import {
  addVaultOptions,
  vaultOptionsFrom,
  type RawOptions,
  type VaultCommandOptions,
} from '../../options/config-flags.ts';
import { addTenantOption } from '../../options/tenant.ts';
import { writeRecord } from '../../output/table.ts';
import { writeJson } from '../../output/write.ts';
import { withServices } from '../../services/with-services.ts';
import { findApplication } from '../../tenancy/tenant-scope.ts';
import { applicationEntries } from './format.ts';

/** Options of the commands that name one application: show, update, delete, regenerate. */
export interface AppIdOptions extends VaultCommandOptions {
  readonly applicationId: string;
  /** Optional: the id finds its tenant; --tenant narrows the search to one. */
  readonly tenant: string | undefined;
}

export const APPLICATION_ID_HELP = "the application's id (see 'svc app list')";

export function appIdOptionsFrom(args: readonly unknown[]): AppIdOptions {
  const raw = commandOf(args).opts<RawOptions & { tenant?: string }>();
  return { ...vaultOptionsFrom(raw), applicationId: String(args[0]), tenant: raw.tenant };
}

export function newAppShowCommand(
  deps: CliDeps,
  run: Runner<AppIdOptions> = (o) => runAppShow(deps, o),
): Command {
  const command = new Command('show')
    .description('Show an application: type, permissions, rules (never its key)')
    .argument('<application-id>', APPLICATION_ID_HELP);
  addTenantOption(command, deps);
  addVaultOptions(command, deps);
  return command.action(async (...args: unknown[]) => {
    await run(appIdOptionsFrom(args));
  });
}

export async function runAppShow(deps: CliDeps, options: AppIdOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  const { application } = await withServices(deps, resolved, options.key, (services) =>
    findApplication(services, options.applicationId, options.tenant),
  );
  if (options.json) writeJson(deps.stdout, application);
  else writeRecord(deps, applicationEntries(application));
}
