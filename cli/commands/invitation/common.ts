import type { Principal } from '../../../core/access/principal.ts';
import type { KeySourceFlags, ResolvedConfig } from '../../../core/config/index.ts';
import type { Tenant } from '../../../core/services-contract.ts';
import type { CliServices } from '../../services.ts';
import { commandOf } from '../../command-kit.ts';
import type { CliDeps } from '../../deps.ts';
import { vaultOptionsFrom, type RawOptions, type VaultCommandOptions } from '../../options.ts';
import { operatorIn, resolveTenant, withServices } from '../../tenant-scope.ts';

/** Options of the commands that name one invitation: show, resend, delete. */
export interface InvitationIdOptions extends VaultCommandOptions {
  readonly tenant: string | undefined;
  readonly invitationId: string;
}

export function invitationIdOptionsFrom(args: readonly unknown[]): InvitationIdOptions {
  const raw = commandOf(args).opts<RawOptions & { tenant?: string }>();
  return { ...vaultOptionsFrom(raw), tenant: raw.tenant, invitationId: String(args[0]) };
}

export interface TenantScope {
  readonly services: CliServices;
  readonly tenant: Tenant;
  readonly principal: Principal;
}

/** Opens the vault and the tenant (--tenant or the only one), runs `fn` as its operator. */
export function inTenant<T>(
  deps: CliDeps,
  resolved: ResolvedConfig,
  key: KeySourceFlags,
  requested: string | undefined,
  fn: (scope: TenantScope) => Promise<T>,
): Promise<T> {
  return withServices(deps, resolved, key, async (services) => {
    const tenant = await resolveTenant(services, requested);
    return fn({ services, tenant, principal: operatorIn(tenant.id) });
  });
}
