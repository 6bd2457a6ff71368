import type { Invitation } from '../../../core/tenancy/contract.ts';
import { commandOf } from '../../program/command-kit.ts';
import { vaultOptionsFrom, type RawOptions, type VaultCommandOptions } from '../../options/config-flags.ts';
import { writeJson, writeLine } from '../../output/write.ts';
import { loadConfig } from '../../runtime/config.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { tenancyOptionsFrom } from '../../services/tenancy-options.ts';
import { inTenant, type TenantScope } from '../../tenancy/tenant-scope.ts';
import { invitationWithDelivery, withDelivery, writeDelivery } from './format.ts';

/** Options of the commands that name one invitation: show, resend, delete. */
export interface InvitationIdOptions extends VaultCommandOptions {
  readonly tenant: string | undefined;
  readonly invitationId: string;
}

export function invitationIdOptionsFrom(args: readonly unknown[]): InvitationIdOptions {
  const raw = commandOf(args).opts<RawOptions & { tenant?: string }>();
  return { ...vaultOptionsFrom(raw), tenant: raw.tenant, invitationId: String(args[0]) };
}

export { inTenant, type TenantScope } from '../../tenancy/tenant-scope.ts';

/**
 * Sends an invitation's mail in the tenant of --tenant (`send`: create or resend) with the mail
 * settings of the configuration, then says so: `--json` prints the invitation with how its mail
 * left, else `headline`, its expiry and where the mail went (never the link).
 */
export async function sendInvitation(
  deps: CliDeps,
  options: VaultCommandOptions & { readonly tenant: string | undefined },
  send: (scope: TenantScope) => Promise<Invitation>,
  headline: (invitation: Invitation) => string,
): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  const admin = tenancyOptionsFrom(resolved.config);
  const { result: invitation, delivery } = await inTenant(
    deps,
    resolved,
    options.key,
    options.tenant,
    (scope) => withDelivery(admin, () => send(scope)),
  );
  if (options.json) {
    writeJson(deps.stdout, invitationWithDelivery(invitation, delivery));
    return;
  }
  writeLine(deps.stdout, headline(invitation));
  writeLine(deps.stdout, `Expires: ${invitation.expires_at}`);
  writeDelivery(deps, invitation.email, delivery);
}
