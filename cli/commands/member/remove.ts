import { Command } from 'commander';
import { confirmDestructive, markDestructive, yesFrom } from '../../program/confirmation.ts';
import type { Principal } from '../../../core/access/principal.ts';
import { VaultError } from '../../../core/errors/catalogue.ts';
import type { CliServices } from '../../services/contract.ts';
import type { Member } from '../../../core/tenancy/contract.ts';
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
import { writeJson, writeLine } from '../../output/write.ts';
import { withServices } from '../../services/with-services.ts';
import { operatorIn, resolveTenant } from '../../tenancy/tenant-scope.ts';
import { MAX_MEMBER_PAGE_SIZE } from '../../../core/tenancy/members.ts';

export interface MemberRemoveOptions extends VaultCommandOptions {
  readonly tenant: string | undefined;
  readonly memberId: string;
  readonly yes: boolean;
}

export function newMemberRemoveCommand(
  deps: CliDeps,
  run: Runner<MemberRemoveOptions> = (o) => runMemberRemove(deps, o),
): Command {
  const command = new Command('remove')
    .description("Remove a member; their sessions lose this tenant at once (the owner can't be removed)")
    .argument('<member-id>', "the member's id (see 'svc member list')");
  markDestructive(command, 'removing a member', { verb: 'remove' });
  addTenantOption(command, deps);
  addVaultOptions(command, deps);
  return command.action(async (...args: unknown[]) => {
    const raw = commandOf(args).opts<RawOptions & { tenant?: string }>();
    await run({
      ...vaultOptionsFrom(raw),
      tenant: raw.tenant,
      memberId: String(args[0]),
      yes: yesFrom(args),
    });
  });
}

/** The member with this id, looked up page by page (the contract has no single get). */
async function findMember(services: CliServices, principal: Principal, id: string): Promise<Member> {
  for (let page = 1; ; page++) {
    const result = await services.members.list(principal, {}, { page, size: MAX_MEMBER_PAGE_SIZE });
    const found = result.items.find((m) => m.id === id);
    if (found !== undefined) return found;
    if (result.items.length < MAX_MEMBER_PAGE_SIZE || page * MAX_MEMBER_PAGE_SIZE >= result.total) {
      throw new VaultError('NOT_FOUND', `no member ${id} in this tenant (see 'svc member list')`);
    }
  }
}

export async function runMemberRemove(deps: CliDeps, options: MemberRemoveOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  const removed = await withServices(deps, resolved, options.key, async (services) => {
    const tenant = await resolveTenant(services, options.tenant);
    const principal = operatorIn(tenant.id);
    const member = await findMember(services, principal, options.memberId);
    await confirmDestructive(deps, options.yes, {
      question: `Remove ${member.user.email} (${member.role}) from ${tenant.name}? Their sessions lose this tenant.`,
      unchanged: 'the member was left as they are',
    });
    await services.members.remove(principal, member.id);
    return member;
  });
  if (options.json) {
    writeJson(deps.stdout, { id: removed.id, tenant_id: removed.tenant_id, removed: true });
    return;
  }
  writeLine(deps.stdout, `Removed member ${removed.id} (${removed.user.email})`);
}
