import { Command } from 'commander';
import { ENV_NAMES, writeConfigFileSettings } from '../../../core/config/index.ts';
import { VaultError } from '../../../core/errors/catalogue.ts';
import { commandOf, type Runner } from '../../program/command-kit.ts';
import { loadConfig } from '../../runtime/config.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import {
  vaultOptionsFrom,
  addVaultOptions,
  type RawOptions,
  type VaultCommandOptions,
} from '../../options/config-flags.ts';
import { colours, writeJson, writeLine } from '../../output/write.ts';
import { withServices } from '../../services/with-services.ts';
import { resolveTenant } from '../../tenancy/tenant-scope.ts';

export interface TenantUseOptions extends VaultCommandOptions {
  /** The tenant to act in from now on, by id or name; undefined with `clear`. */
  readonly tenant: string | undefined;
  /** Forget the chosen tenant (commands then act in the vault's only tenant). */
  readonly clear: boolean;
}

const HELP_AFTER = `
The tenant is kept by its id as "tenant" in the config file (<home>/config.json, or --config /
SVC_CONFIG), so it survives a rename; --tenant and SVC_TENANT still win for one command. 'svc status'
shows the choice.

Examples:
  svc tenant use Acme
  svc tenant use --clear`;

export function newTenantUseCommand(
  deps: CliDeps,
  run: Runner<TenantUseOptions> = (o) => runTenantUse(deps, o),
): Command {
  const command = new Command('use')
    .description('Choose the tenant commands act in when they get no --tenant (kept in the config file)')
    .argument('[id-or-name]', 'the tenant, by id or name (see svc tenant list)')
    .option('--clear', 'forget the chosen tenant');
  addVaultOptions(command, deps);
  command.addHelpText('after', HELP_AFTER);
  return command.action(async (...args: unknown[]) => {
    const raw = commandOf(args).opts<RawOptions & { clear?: boolean }>();
    const tenant = args[0] as string | undefined;
    const clear = raw.clear === true;
    if (clear === (tenant !== undefined))
      throw new VaultError('USAGE', 'name a tenant (id or name), or pass --clear');
    await run({ ...vaultOptionsFrom(raw), tenant, clear });
  });
}

export async function runTenantUse(deps: CliDeps, options: TenantUseOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  const file = resolved.configFile.path;
  const tenant =
    options.tenant === undefined
      ? null
      : await withServices(deps, resolved, options.key, (services) =>
          resolveTenant(services, options.tenant),
        );
  await writeConfigFileSettings(file, { tenant: tenant?.id ?? null });
  if (options.json) {
    writeJson(deps.stdout, { tenant, config_file: file });
  } else if (tenant === null) {
    writeLine(
      deps.stdout,
      `No tenant chosen (removed from ${file}); commands act in the vault's only tenant.`,
    );
  } else {
    writeLine(deps.stdout, `Commands now act in tenant ${tenant.name} (${tenant.id}); kept in ${file}.`);
  }
  // The environment outranks the file: say so, or the choice would seem to be ignored.
  if (resolved.sources.tenant === 'env') {
    const { yellow } = colours(deps, deps.stderr);
    writeLine(
      deps.stderr,
      `${yellow('warning:')} ${ENV_NAMES.tenant} is set (${resolved.config.tenant}) and wins over the config file; unset it to use this choice.`,
    );
  }
}
