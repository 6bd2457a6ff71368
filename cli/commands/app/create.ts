import { Command, Option } from 'commander';
import { ADMINISTERED_APPLICATION_TYPES, type ApplicationType } from '../../../core/access/permissions.ts';
import { VaultError } from '../../../core/errors/catalogue.ts';
import type { CliDeps } from '../../deps.ts';
import { requireUnlessTTY, valueOrPrompt } from '../../ask.ts';
import { commandOf, type Runner } from '../../command-kit.ts';
import { loadConfig } from '../../context.ts';
import {
  addJsonOption,
  addTenantOption,
  addVaultOptions,
  vaultOptionsFrom,
  type RawOptions,
  type VaultCommandOptions,
} from '../../options.ts';
import { writeJson, writeLine } from '../../output.ts';
import { operatorIn, resolveTenant, withServices } from '../../tenant-scope.ts';
import {
  addGrantOptions,
  grantOptionsFrom,
  loadRules,
  permissionsHelp,
  permissionsToGrant,
  type GrantOptions,
  type RawGrantOptions,
} from './grants.ts';

export interface AppCreateOptions extends VaultCommandOptions, GrantOptions {
  readonly tenant: string | undefined;
  readonly name: string | undefined;
  readonly type: ApplicationType | undefined;
}

type RawAppCreate = RawOptions & RawGrantOptions & { tenant?: string; name?: string; type?: ApplicationType };

export function newAppCreateCommand(
  deps: CliDeps,
  run: Runner<AppCreateOptions> = (o) => runAppCreate(deps, o),
): Command {
  const command = new Command('create')
    .description('Create an application; its API key is shown once')
    .option('--name <name>', 'application name (asked on a terminal when missing)')
    .addOption(
      new Option('--type <type>', 'application type (asked on a terminal when missing)').choices(
        ADMINISTERED_APPLICATION_TYPES,
      ),
    );
  addGrantOptions(command);
  addTenantOption(command);
  addVaultOptions(command, deps);
  addJsonOption(command);
  command.addHelpText('after', permissionsHelp());
  return command.action(async (...args: unknown[]) => {
    const raw = commandOf(args).opts<RawAppCreate>();
    await run({
      ...vaultOptionsFrom(raw),
      ...grantOptionsFrom(deps, raw),
      tenant: raw.tenant,
      name: raw.name,
      type: raw.type,
    });
  });
}

async function typeOrPrompt(deps: CliDeps, type: ApplicationType | undefined): Promise<ApplicationType> {
  if (type !== undefined) return type;
  const answer = (
    await deps.prompter.input({
      message: `Type (${ADMINISTERED_APPLICATION_TYPES.join(', ')}):`,
      default: 'private',
    })
  ).trim();
  const chosen = ADMINISTERED_APPLICATION_TYPES.find((t) => t === answer);
  if (chosen === undefined) {
    throw new VaultError(
      'USAGE',
      `the type must be one of ${ADMINISTERED_APPLICATION_TYPES.join(', ')}, not '${answer}'`,
    );
  }
  return chosen;
}

export async function runAppCreate(deps: CliDeps, options: AppCreateOptions): Promise<void> {
  requireUnlessTTY(deps, { '--name': options.name, '--type': options.type });
  // A bad rules file fails before the vault is unlocked.
  const rules = options.rules === undefined ? [] : await loadRules(options.rules);
  const resolved = await loadConfig(deps, options.config);
  const created = await withServices(deps, resolved, options.key, async (services) => {
    const tenant = await resolveTenant(services, options.tenant);
    const name = await valueOrPrompt(deps, options.name, '--name', 'Application name:');
    const type = await typeOrPrompt(deps, options.type);
    return services.applications.create(operatorIn(tenant.id), {
      name,
      type,
      permissions: permissionsToGrant(options, type) ?? [],
      rules,
    });
  });
  if (options.json) {
    writeJson(deps.stdout, created);
    return;
  }
  writeLine(deps.stdout, `Application: ${created.id} (${created.name}, ${created.type})`);
  writeLine(deps.stdout, `Tenant: ${created.tenant_id}`);
  writeLine(deps.stdout, `API key (shown once): ${created.key}`);
}
