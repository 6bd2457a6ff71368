import { Command } from 'commander';
import { VaultError } from '../../../core/errors/catalogue.ts';
import type { Runner } from '../../program/command-kit.ts';
import { loadConfig } from '../../runtime/config.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { writeRecord } from '../../output/table.ts';
import { writeJson } from '../../output/write.ts';
import { withServices } from '../../services/with-services.ts';
import { findApplication } from '../../tenancy/tenant-scope.ts';
import { appFieldsAction, type AppFieldsOptions } from './fields.ts';
import { applicationEntries } from './format.ts';
import { loadRules, permissionsToGrant } from './grants.ts';
import { APPLICATION_ID_HELP } from './show.ts';

export interface AppUpdateOptions extends AppFieldsOptions {
  readonly applicationId: string;
}

export function newAppUpdateCommand(
  deps: CliDeps,
  run: Runner<AppUpdateOptions> = (o) => runAppUpdate(deps, o),
): Command {
  const command = new Command('update')
    .description(
      "Change an application's name, permissions or rules; what you leave out stays as it is (the type cannot change)",
    )
    .argument('<application-id>', APPLICATION_ID_HELP)
    .option('--name <name>', 'new name');
  return appFieldsAction(
    command,
    deps,
    '\n--permission replaces all permissions; --rule / --rules-file replace all rules (an empty array removes them).',
    (options, _raw, args) => run({ ...options, applicationId: String(args[0]) }),
  );
}

export async function runAppUpdate(deps: CliDeps, options: AppUpdateOptions): Promise<void> {
  if (
    options.name === undefined &&
    options.permissions === undefined &&
    !options.allPermissions &&
    options.rules === undefined
  ) {
    throw new VaultError(
      'USAGE',
      'nothing to update; pass --name, --permission, --all-permissions, --rule or --rules-file',
    );
  }
  const rules = options.rules === undefined ? undefined : await loadRules(options.rules);
  const resolved = await loadConfig(deps, options.config);
  const updated = await withServices(deps, resolved, options.key, async (services) => {
    const { principal, application } = await findApplication(services, options.applicationId, options.tenant);
    // The service replaces the whole application (PUT); the CLI fills in what was left out.
    return services.applications.update(principal, application.id, {
      name: options.name ?? application.name,
      permissions: permissionsToGrant(options, application.type) ?? application.permissions,
      rules: rules ?? application.rules,
    });
  });
  if (options.json) writeJson(deps.stdout, updated);
  else writeRecord(deps, applicationEntries(updated));
}
