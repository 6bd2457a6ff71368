import { Command } from 'commander';
import {
  ADMINISTERED_APPLICATION_TYPES,
  PERMISSIONS,
  type ApplicationType,
} from '../../../core/access/permissions.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { requireUnlessTTY, valueOrPrompt } from '../../prompts/ask.ts';
import type { Runner } from '../../program/command-kit.ts';
import { loadConfig } from '../../runtime/config.ts';
import { choiceOption } from '../../options/values.ts';
import { writeJson, writeLine } from '../../output/write.ts';
import { withServices } from '../../services/with-services.ts';
import { operatorIn, resolveTenant } from '../../tenancy/tenant-scope.ts';
import { appFieldsAction, type AppFieldsOptions } from './fields.ts';
import { loadRules, permissionsToGrant } from './grants.ts';

export interface AppCreateOptions extends AppFieldsOptions {
  readonly type: ApplicationType | undefined;
}

export function newAppCreateCommand(
  deps: CliDeps,
  run: Runner<AppCreateOptions> = (o) => runAppCreate(deps, o),
): Command {
  const command = new Command('create')
    .description('Create an application; its API key is shown once')
    .option('--name <name>', 'application name (asked on a terminal when missing)')
    .addOption(
      choiceOption(
        '--type <type>',
        'application type (asked on a terminal when missing)',
        ADMINISTERED_APPLICATION_TYPES,
      ),
    );
  return appFieldsAction<{ type?: ApplicationType }>(command, deps, '', (options, raw) =>
    run({ ...options, type: raw.type }),
  );
}

const TYPE_DESCRIPTIONS: Readonly<Record<ApplicationType, string>> = {
  private: 'a back end: creates, reads and uses tokens',
  public: 'a browser or app: creates and updates tokens only',
  management: 'manages the tenant: applications, members, logs',
  expiring: 'short-lived read access to named tokens, created by a private key',
};

async function typeOrPrompt(deps: CliDeps, type: ApplicationType | undefined): Promise<ApplicationType> {
  if (type !== undefined) return type;
  return deps.prompter.select<ApplicationType>({
    message: 'Type:',
    choices: ADMINISTERED_APPLICATION_TYPES.map((value) => ({
      value,
      description: TYPE_DESCRIPTIONS[value],
    })),
    default: 'private',
  });
}

/**
 * The permissions to grant: the flags' when given; with neither flags nor rules on a terminal, a
 * checklist of the permissions the type may hold (an application with none can do nothing).
 */
async function permissionsOrPrompt(
  deps: CliDeps,
  options: AppCreateOptions,
  type: ApplicationType,
  hasRules: boolean,
): Promise<readonly string[]> {
  const given = permissionsToGrant(options, type);
  if (given !== undefined) return given;
  if (!deps.isTTY || hasRules) return [];
  return deps.prompter.checkbox({
    message: 'Permissions (space to select, enter to accept):',
    choices: PERMISSIONS.filter((p) => p.application_types.includes(type)).map((p) => ({
      value: p.type,
      description: p.description,
    })),
    required: true,
  });
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
      permissions: await permissionsOrPrompt(deps, options, type, rules.length > 0),
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
