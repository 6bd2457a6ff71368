import type { Command } from 'commander';
import {
  addVaultOptions,
  vaultOptionsFrom,
  type RawOptions,
  type VaultCommandOptions,
} from '../../options/config-flags.ts';
import { addTenantOption } from '../../options/tenant.ts';
import { commandOf } from '../../program/command-kit.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import {
  addGrantOptions,
  grantOptionsFrom,
  permissionsHelp,
  type GrantOptions,
  type RawGrantOptions,
} from './grants.ts';

/** The options of app create and update: the name, the grants, --tenant and the vault's. */
export interface AppFieldsOptions extends VaultCommandOptions, GrantOptions {
  readonly tenant: string | undefined;
  readonly name: string | undefined;
}

/**
 * App create and update: adds the grant options, --tenant, the vault's and the permissions by type
 * (after `helpNote`) to `command`, which defines its own --name, and an action that hands `act` the
 * parsed options, the raw values of the flags the command adds besides (`O`) and the positional
 * arguments.
 */
export function appFieldsAction<O extends object = object>(
  command: Command,
  deps: CliDeps,
  helpNote: string,
  act: (options: AppFieldsOptions, raw: O, args: readonly unknown[]) => Promise<void>,
): Command {
  addGrantOptions(command);
  addTenantOption(command, deps);
  addVaultOptions(command, deps);
  command.addHelpText('after', `${helpNote}${permissionsHelp()}`);
  return command.action(async (...args: unknown[]) => {
    const raw = commandOf(args).opts<RawOptions & RawGrantOptions & { tenant?: string; name?: string } & O>();
    const options = {
      ...vaultOptionsFrom(raw),
      ...grantOptionsFrom(deps, raw),
      tenant: raw.tenant,
      name: raw.name,
    };
    await act(options, raw, args);
  });
}
