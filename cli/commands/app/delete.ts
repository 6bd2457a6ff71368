import type { Command } from 'commander';
import { confirmDestructive } from '../../program/confirmation.ts';
import type { Runner } from '../../program/command-kit.ts';
import { loadConfig } from '../../runtime/config.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { newByIdDeleteCommand, reportDeleted } from '../../program/deletion.ts';
import { withServices } from '../../services/with-services.ts';
import { findApplication } from '../../tenancy/tenant-scope.ts';
import { APPLICATION_ID_HELP, appIdOptionsFrom, type AppIdOptions } from './show.ts';

export interface AppDeleteOptions extends AppIdOptions {
  readonly yes: boolean;
}

export function newAppDeleteCommand(
  deps: CliDeps,
  run: Runner<AppDeleteOptions> = (o) => runAppDelete(deps, o),
): Command {
  return newByIdDeleteCommand(
    deps,
    {
      action: 'deleting an application',
      description: 'Delete an application; its API key stops working at once',
      argument: '<application-id>',
      help: APPLICATION_ID_HELP,
      optionsFrom: appIdOptionsFrom,
    },
    run,
  );
}

export async function runAppDelete(deps: CliDeps, options: AppDeleteOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  const deleted = await withServices(deps, resolved, options.key, async (services) => {
    const { principal, application } = await findApplication(services, options.applicationId, options.tenant);
    await confirmDestructive(deps, options.yes, {
      question: `Delete application ${application.name} (${application.id})? Its API key stops working.`,
      unchanged: 'the application was left as it is',
    });
    await services.applications.delete(principal, application.id);
    return application;
  });
  reportDeleted(
    deps,
    options.json,
    { id: deleted.id, tenant_id: deleted.tenant_id },
    `Deleted application ${deleted.id} (${deleted.name})`,
  );
}
