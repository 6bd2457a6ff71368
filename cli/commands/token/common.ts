import type { Command } from 'commander';
import { withView, type Principal } from '../../../core/access/principal.ts';
import type { Tenant } from '../../../core/services-contract.ts';
import { loadConfig } from '../../runtime/config.ts';
import type { CliServices } from '../../services/contract.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import {
  addVaultOptions,
  vaultOptionsFrom,
  type RawOptions,
  type VaultCommandOptions,
} from '../../options/config-flags.ts';
import { addTenantOption } from '../../options/tenant.ts';
import { inTenant } from '../../tenancy/tenant-scope.ts';
import { commandOf } from '../../program/command-kit.ts';

/** Options every token command shares: the vault, `--tenant`, `--json`. */
export interface TokenScopeOptions extends VaultCommandOptions {
  readonly tenant: string | undefined;
  /** `--reveal` (commands that read): token data in plaintext instead of masked. */
  readonly reveal?: boolean;
}

export type RawTokenScope = RawOptions & { tenant?: string; reveal?: boolean };

export function addTokenScopeOptions(command: Command, deps: CliDeps): Command {
  addTenantOption(command, deps);
  addVaultOptions(command, deps);
  return command;
}

export function tokenScopeOptionsFrom(raw: RawTokenScope): TokenScopeOptions {
  return { ...vaultOptionsFrom(raw), tenant: raw.tenant };
}

/**
 * Adds the scope options to `command`, after the verb's own, and gives it an action that hands
 * `act` the parsed scope, the raw options (for the verb's own flags) and the positional arguments.
 */
export function tokenScopeAction<Raw extends RawTokenScope>(
  command: Command,
  deps: CliDeps,
  act: (scope: TokenScopeOptions, raw: Raw, args: readonly unknown[]) => Promise<void>,
): Command {
  addTokenScopeOptions(command, deps);
  return command.action(async (...args: unknown[]) => {
    const raw = commandOf(args).opts<Raw>();
    await act(tokenScopeOptionsFrom(raw), raw, args);
  });
}

export interface TokenScope {
  readonly tokens: CliServices['tokens'];
  readonly associations: CliServices['tokenAssociations'];
  /**
   * The operator of the tenant: every permission, every action audited; token data shown masked
   * (the token's own mask) unless the command was given `--reveal`.
   */
  readonly principal: Principal;
  readonly tenant: Tenant;
}

/** Resolves the tenant wherever the vault is, runs `fn` with the token services as its operator. */
export async function withTokens<T>(
  deps: CliDeps,
  options: TokenScopeOptions,
  fn: (scope: TokenScope) => Promise<T>,
): Promise<T> {
  const resolved = await loadConfig(deps, options.config);
  const view = options.reveal === true ? 'reveal' : 'mask';
  return inTenant(deps, resolved, options.key, options.tenant, ({ services, principal, tenant }) =>
    fn({
      tokens: services.tokens,
      associations: services.tokenAssociations,
      principal: withView(principal, view),
      tenant,
    }),
  );
}

/** The token's id argument of get, update and delete. */
export const TOKEN_ID_HELP = "the token's id (see 'svc token list')";
