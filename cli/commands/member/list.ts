import { MAX_MEMBER_PAGE_SIZE } from '../../../core/tenancy/members.ts';
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
import { addPageOptions, pageOptionsFrom, type PageOptions } from '../../options/paging.ts';
import { addTenantOption } from '../../options/tenant.ts';
import { collectList } from '../../options/values.ts';
import { writeListPage } from '../../output/pages.ts';
import { withServices } from '../../services/with-services.ts';
import { operatorIn, resolveTenant } from '../../tenancy/tenant-scope.ts';
import { MEMBER_COLUMNS, memberRow } from './format.ts';

export interface MemberListOptions extends VaultCommandOptions, PageOptions {
  readonly tenant: string | undefined;
  readonly userIds: readonly string[];
}

export function newMemberListCommand(
  deps: CliDeps,
  run: Runner<MemberListOptions> = (o) => runMemberList(deps, o),
): Command {
  const command = new Command('list')
    .description("List a tenant's members (the owner and everyone who accepted an invitation)")
    .option('--user-id <id>', 'only this user (repeatable, or comma-separated)', collectList);
  addPageOptions(command, MAX_MEMBER_PAGE_SIZE);
  addTenantOption(command, deps);
  addVaultOptions(command, deps);
  return command.action(async (...args: unknown[]) => {
    const raw = commandOf(args).opts<
      RawOptions & { tenant?: string; userId?: string[]; page?: number; size?: number }
    >();
    await run({
      ...vaultOptionsFrom(raw),
      ...pageOptionsFrom(raw),
      tenant: raw.tenant,
      userIds: raw.userId ?? [],
    });
  });
}

export async function runMemberList(deps: CliDeps, options: MemberListOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  const page = await withServices(deps, resolved, options.key, async (services) => {
    const tenant = await resolveTenant(services, options.tenant);
    const filter = options.userIds.length === 0 ? {} : { userIds: options.userIds };
    return services.members.list(operatorIn(tenant.id), filter, { page: options.page, size: options.size });
  });
  writeListPage(deps, page, options, {
    columns: MEMBER_COLUMNS,
    row: memberRow,
    noun: 'members',
    none: 'No members.',
  });
}
