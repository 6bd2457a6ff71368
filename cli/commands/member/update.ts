import { Command } from 'commander';
import { MEMBER_ROLES, type MemberRole } from '../../../core/access/principal.ts';
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
import { choiceOption } from '../../options/values.ts';
import { writeJson, writeLine } from '../../output/write.ts';
import { withServices } from '../../services/with-services.ts';
import { operatorIn, resolveTenant } from '../../tenancy/tenant-scope.ts';

export interface MemberUpdateOptions extends VaultCommandOptions {
  readonly tenant: string | undefined;
  readonly memberId: string;
  readonly role: MemberRole;
}

export function newMemberUpdateCommand(
  deps: CliDeps,
  run: Runner<MemberUpdateOptions> = (o) => runMemberUpdate(deps, o),
): Command {
  const command = new Command('update')
    .description(
      "Change a member's role; --role OWNER transfers ownership (the previous owner becomes ADMIN)",
    )
    .argument('<member-id>', "the member's id (see 'svc member list')")
    .addOption(choiceOption('--role <role>', 'the new role', MEMBER_ROLES).makeOptionMandatory());
  addTenantOption(command, deps);
  addVaultOptions(command, deps);
  return command.action(async (...args: unknown[]) => {
    const raw = commandOf(args).opts<RawOptions & { tenant?: string; role: MemberRole }>();
    await run({ ...vaultOptionsFrom(raw), tenant: raw.tenant, memberId: String(args[0]), role: raw.role });
  });
}

export async function runMemberUpdate(deps: CliDeps, options: MemberUpdateOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  const member = await withServices(deps, resolved, options.key, async (services) => {
    const tenant = await resolveTenant(services, options.tenant);
    return services.members.updateRole(operatorIn(tenant.id), options.memberId, options.role);
  });
  if (options.json) {
    writeJson(deps.stdout, member);
    return;
  }
  writeLine(deps.stdout, `Member ${member.id} (${member.user.email}) is ${member.role}`);
}
