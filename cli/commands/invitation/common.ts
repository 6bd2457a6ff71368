import { commandOf } from '../../program/command-kit.ts';
import { vaultOptionsFrom, type RawOptions, type VaultCommandOptions } from '../../options/config-flags.ts';

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
