import { Command, Option } from 'commander';
import { VaultError } from '../../../core/errors/catalogue.ts';
import { readNewPassword, requireUnlessTTY, valueOrPrompt } from '../../prompts/ask.ts';
import { commandOf, type Runner } from '../../program/command-kit.ts';
import { loadConfig } from '../../runtime/config.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import {
  addVaultOptions,
  vaultOptionsFrom,
  type RawOptions,
  type VaultCommandOptions,
} from '../../options/config-flags.ts';
import { writeJson, writeLine } from '../../output/write.ts';
import { withServices } from '../../services/with-services.ts';
import { svcCommand } from '../../output/runnable.ts';

export interface TenantCreateOptions extends VaultCommandOptions {
  readonly name: string | undefined;
  readonly ownerEmail: string | undefined;
  readonly ownerPasswordStdin: boolean;
}

type RawTenantCreate = RawOptions & { name?: string; ownerEmail?: string; ownerPasswordStdin?: boolean };

export function newTenantCreateCommand(
  deps: CliDeps,
  run: Runner<TenantCreateOptions> = (o) => runTenantCreate(deps, o),
): Command {
  const command = new Command('create')
    .description(
      'Create a tenant with its owner and a first management application; the API key is shown once',
    )
    .option('--name <name>', 'tenant name (asked on a terminal when missing)')
    .option('--owner-email <email>', "owner's e-mail; the user is created if new (asked when missing)")
    .addOption(
      new Option(
        '--owner-password-stdin',
        "read the new owner's password from standard input (else asked twice on a terminal; optional)",
      ).conflicts('passphraseStdin'),
    )
    .addHelpText(
      'after',
      '\nWithout a password the owner cannot sign in yet; set one later with `svc user passwd <email>`.',
    );
  addVaultOptions(command, deps);
  return command.action(async (...args: unknown[]) => {
    const raw = commandOf(args).opts<RawTenantCreate>();
    await run({
      ...vaultOptionsFrom(raw),
      name: raw.name,
      ownerEmail: raw.ownerEmail,
      ownerPasswordStdin: raw.ownerPasswordStdin === true,
    });
  });
}

export async function runTenantCreate(deps: CliDeps, options: TenantCreateOptions): Promise<void> {
  requireUnlessTTY(deps, { '--name': options.name, '--owner-email': options.ownerEmail });
  const resolved = await loadConfig(deps, options.config);
  const { created, passwordSet } = await withServices(deps, resolved, options.key, async (services) => {
    const name = await valueOrPrompt(deps, options.name, '--name', 'Tenant name:');
    const ownerEmail = await valueOrPrompt(deps, options.ownerEmail, '--owner-email', "Owner's e-mail:");
    // An existing user keeps their password: only a new owner is asked for one.
    const existing = await services.users.findByEmail(ownerEmail);
    if (existing !== null && options.ownerPasswordStdin) {
      throw new VaultError(
        'USAGE',
        `${ownerEmail} already has an account, whose password stays as it is; change it with 'svc user passwd ${ownerEmail}'`,
      );
    }
    const ownerPassword =
      existing === null
        ? await readNewPassword(deps, {
            who: ownerEmail,
            fromStdin: options.ownerPasswordStdin,
            stdinFlag: '--owner-password-stdin',
            optional: true,
          })
        : undefined;
    const result = await services.tenants.create(
      ownerPassword === undefined ? { name, ownerEmail } : { name, ownerEmail, ownerPassword },
      null,
    );
    return { created: result, passwordSet: existing !== null || ownerPassword !== undefined };
  });

  const { tenant, owner, application } = created;
  if (!passwordSet && owner !== null) {
    writeLine(
      deps.stderr,
      `No password set for ${owner.email}; set one later with: ${svcCommand(deps.env)} user passwd ${owner.email}`,
    );
  }
  if (options.json) {
    writeJson(deps.stdout, created);
    return;
  }
  writeLine(deps.stdout, `Tenant: ${tenant.id} (${tenant.name})`);
  writeLine(deps.stdout, `Owner: ${owner === null ? 'none' : `${owner.email} (${owner.id})`}`);
  if (application !== null) {
    writeLine(deps.stdout, `Application: ${application.id} (${application.name}, ${application.type})`);
    writeLine(deps.stdout, `Management API key (shown once): ${application.key}`);
  }
}
