import { Command } from 'commander';
import type { Runner } from '../../program/command-kit.ts';
import { confirmDestructive, markDestructive, yesFrom } from '../../program/confirmation.ts';
import { loadConfig } from '../../runtime/config.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { addVaultOptions } from '../../options/config-flags.ts';
import { addTenantOption } from '../../options/tenant.ts';
import { writeJson, writeLine } from '../../output/write.ts';
import { withServices } from '../../services/with-services.ts';
import { findApplication } from '../../tenancy/tenant-scope.ts';
import { APPLICATION_ID_HELP, appIdOptionsFrom, type AppIdOptions } from './show.ts';

export interface AppRegenerateOptions extends AppIdOptions {
  readonly yes: boolean;
}

export function newAppRegenerateCommand(
  deps: CliDeps,
  run: Runner<AppRegenerateOptions> = (o) => runAppRegenerate(deps, o),
): Command {
  const command = new Command('regenerate')
    .description("Replace an application's API key; the old key stops working and the new one is shown once")
    .argument('<application-id>', APPLICATION_ID_HELP);
  markDestructive(command, "replacing an application's API key", { verb: 'replace the key' });
  addTenantOption(command, deps);
  addVaultOptions(command, deps);
  return command.action(async (...args: unknown[]) => {
    await run({ ...appIdOptionsFrom(args), yes: yesFrom(args) });
  });
}

export async function runAppRegenerate(deps: CliDeps, options: AppRegenerateOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  const regenerated = await withServices(deps, resolved, options.key, async (services) => {
    const { principal, application } = await findApplication(services, options.applicationId, options.tenant);
    await confirmDestructive(deps, options.yes, {
      question: `Replace the API key of application ${application.name} (${application.id})? The current key stops working at once.`,
      unchanged: 'the application keeps its key',
    });
    return services.applications.regenerate(principal, application.id);
  });
  if (options.json) {
    writeJson(deps.stdout, regenerated);
    return;
  }
  writeLine(deps.stdout, `API key for ${regenerated.id} (shown once): ${regenerated.key}`);
}
