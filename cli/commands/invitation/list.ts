import { MAX_INVITATION_PAGE_SIZE } from '../../../core/tenancy/invitations.ts';
import { Command } from 'commander';
import type { InvitationStatus } from '../../../core/tenancy/contract.ts';
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
import { choiceOption } from '../../options/values.ts';
import { writeListPage } from '../../output/pages.ts';
import { inTenant } from './common.ts';
import { INVITATION_COLUMNS, invitationRow } from './format.ts';
import { runnable } from '../../output/runnable.ts';

export interface InvitationListOptions extends VaultCommandOptions, PageOptions {
  readonly tenant: string | undefined;
  readonly status: InvitationStatus | undefined;
}

export const INVITATION_STATUSES: readonly InvitationStatus[] = ['PENDING', 'EXPIRED'];

export function newInvitationListCommand(
  deps: CliDeps,
  run: Runner<InvitationListOptions> = (o) => runInvitationList(deps, o),
): Command {
  const command = new Command('list')
    .description("List a tenant's outstanding invitations")
    .addOption(choiceOption('--status <status>', 'only invitations in this state', INVITATION_STATUSES));
  addPageOptions(command, MAX_INVITATION_PAGE_SIZE);
  addTenantOption(command, deps);
  addVaultOptions(command, deps);
  return command.action(async (...args: unknown[]) => {
    const raw = commandOf(args).opts<
      RawOptions & { tenant?: string; status?: InvitationStatus; page?: number; size?: number }
    >();
    await run({ ...vaultOptionsFrom(raw), ...pageOptionsFrom(raw), tenant: raw.tenant, status: raw.status });
  });
}

export async function runInvitationList(deps: CliDeps, options: InvitationListOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  const page = await inTenant(deps, resolved, options.key, options.tenant, ({ services, principal }) =>
    services.invitations.list(principal, options.status === undefined ? {} : { status: options.status }, {
      page: options.page,
      size: options.size,
    }),
  );
  writeListPage(deps, page, options, {
    columns: INVITATION_COLUMNS,
    row: invitationRow,
    noun: 'invitations',
    none: runnable(deps.env, "No invitations (create one with 'svc invitation create')."),
  });
}
