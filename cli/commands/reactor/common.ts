import type { Command } from 'commander';
import type { Principal } from '../../../core/access/principal.ts';
import { VaultError } from '../../../core/errors/catalogue.ts';
import type { Reactor } from '../../../core/reactors/contract.ts';
import { isPlainObject } from '../../../core/validation/json-value.ts';
import { commandOf } from '../../program/command-kit.ts';
import { loadConfig } from '../../runtime/config.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import {
  addVaultOptions,
  vaultOptionsFrom,
  type RawOptions,
  type VaultCommandOptions,
} from '../../options/config-flags.ts';
import { addTenantOption } from '../../options/tenant.ts';
import { writeJson } from '../../output/write.ts';
import { writeRecord } from '../../output/table.ts';
import type { CliServices } from '../../services/contract.ts';
import { inTenant } from '../../tenancy/tenant-scope.ts';
import { fileSource, readJson, readText, textSource, type JsonSource } from '../token/input.ts';

/** Options every formula and reactor command shares. */
export interface ReactorScopeOptions extends VaultCommandOptions {
  readonly tenant: string | undefined;
}

export const REACTOR_ID_HELP = "the reactor's id (see 'svc reactor list')";

export function addReactorScopeOptions(command: Command, deps: CliDeps): Command {
  addTenantOption(command, deps);
  addVaultOptions(command, deps);
  return command;
}

/** The scope options, and the raw values of the flags the command adds (`O`). */
export function reactorScopeFrom<O extends object = object>(
  args: readonly unknown[],
): { readonly scope: ReactorScopeOptions; readonly raw: O } {
  const raw = commandOf(args).opts<RawOptions & { tenant?: string } & O>();
  return { scope: { ...vaultOptionsFrom(raw), tenant: raw.tenant }, raw };
}

/**
 * Runs `fn` as the operator of the tenant of --tenant, with the services wherever the vault is
 * (through the server holding it, or opened in this process).
 */
export async function withReactors<T>(
  deps: CliDeps,
  options: ReactorScopeOptions,
  fn: (services: CliServices, principal: Principal) => Promise<T>,
): Promise<T> {
  const resolved = await loadConfig(deps, options.config);
  return inTenant(deps, resolved, options.key, options.tenant, ({ services, principal }) =>
    fn(services, principal),
  );
}

/** JSON from `source`, which must be an object: `{what} must be a JSON object` otherwise. */
async function jsonObject(deps: CliDeps, source: JsonSource): Promise<Record<string, unknown>> {
  const value = await readJson(deps, source);
  if (!isPlainObject(value)) throw new VaultError('USAGE', `${source.label} must be a JSON object`);
  return value;
}

/** A JSON object flag's value (`--configuration '{…}'`), parsed without ever echoing it. */
export async function jsonObjectFlag(
  deps: CliDeps,
  text: string | undefined,
  flag: string,
): Promise<Record<string, unknown> | undefined> {
  return text === undefined ? undefined : jsonObject(deps, textSource(text, flag));
}

/** A JSON array flag's value (`--configuration '[…]'`), parsed without ever echoing it. */
export async function jsonArrayFlag(
  deps: CliDeps,
  text: string | undefined,
  flag: string,
): Promise<unknown[] | undefined> {
  if (text === undefined) return undefined;
  const value = await readJson(deps, textSource(text, flag));
  if (!Array.isArray(value)) throw new VaultError('USAGE', `${flag} must be a JSON array`);
  return value;
}

/** Where `--x <json>` or `--x-file <file>` (not both) reads from; undefined when neither is given. */
function flagOrFileSource(
  deps: CliDeps,
  text: string | undefined,
  file: string | undefined,
  flag: string,
): JsonSource | undefined {
  if (text !== undefined && file !== undefined) {
    throw new VaultError('USAGE', `give ${flag} or ${flag}-file, not both`);
  }
  if (text !== undefined) return textSource(text, flag);
  return file === undefined ? undefined : fileSource(deps, file);
}

/** JSON from `--x <json>` or `--x-file <file>` (not both); undefined when neither is given. */
export async function jsonFromFlagOrFile(
  deps: CliDeps,
  text: string | undefined,
  file: string | undefined,
  flag: string,
): Promise<unknown> {
  const source = flagOrFileSource(deps, text, file, flag);
  return source === undefined ? undefined : readJson(deps, source);
}

/** The same, for a value that must be a JSON object. */
export async function jsonObjectFromFlagOrFile(
  deps: CliDeps,
  text: string | undefined,
  file: string | undefined,
  flag: string,
): Promise<Record<string, unknown> | undefined> {
  const source = flagOrFileSource(deps, text, file, flag);
  return source === undefined ? undefined : jsonObject(deps, source);
}

/** The text of `--code-file <file>` (`-` for standard input). */
export function readCodeFile(deps: CliDeps, file: string): Promise<string> {
  return readText(deps, fileSource(deps, file));
}

/** An application reference as the API takes it: none is null. */
export function applicationRef(value: string | null | undefined): { id: string } | null {
  return value === undefined || value === null ? null : { id: value };
}

export function reactorEntries(reactor: Reactor): Array<[string, string]> {
  return [
    ['ID', reactor.id],
    ['Name', reactor.name],
    ['Formula', `${reactor.formula.name} (${reactor.formula.id})`],
    ['Configuration', Object.keys(reactor.configuration).join(', ')],
    [
      'Application',
      reactor.application === null ? '' : `${reactor.application.name} (${reactor.application.id})`,
    ],
    ['Created', reactor.created_at],
  ];
}

/** A reactor: JSON under --json, else a record. */
export function printReactor(deps: CliDeps, options: ReactorScopeOptions, reactor: Reactor): void {
  if (options.json) writeJson(deps.stdout, reactor);
  else writeRecord(deps, reactorEntries(reactor));
}
