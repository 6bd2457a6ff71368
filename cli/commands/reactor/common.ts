import type { Command } from 'commander';
import type { Principal } from '../../../core/access/principal.ts';
import { VaultError } from '../../../core/errors/catalogue.ts';
import type { Reactor, ReactorFormula } from '../../../core/reactors/contract.ts';
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
import type { CliServices } from '../../services/contract.ts';
import { inTenant } from '../../tenancy/tenant-scope.ts';
import { fileSource, readJson, readText, textSource, type JsonSource } from '../token/input.ts';

/** Options every formula and reactor command shares. */
export interface ReactorScopeOptions extends VaultCommandOptions {
  readonly tenant: string | undefined;
}

export type RawReactorScope = RawOptions & { tenant?: string };

export function addReactorScopeOptions(command: Command, deps: CliDeps): Command {
  addTenantOption(command, deps);
  addVaultOptions(command, deps);
  return command;
}

export function reactorScopeFrom(
  args: readonly unknown[],
): ReactorScopeOptions & { raw: Record<string, unknown> } {
  const raw = commandOf(args).opts<RawReactorScope & Record<string, unknown>>();
  return { ...vaultOptionsFrom(raw), tenant: raw.tenant, raw };
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

/** A JSON flag's value, parsed without ever echoing it. */
export async function jsonFlag(deps: CliDeps, text: string | undefined, flag: string): Promise<unknown> {
  if (text === undefined) return undefined;
  return readJson(deps, textSource(text, flag));
}

/** JSON from `--x <json>` or `--x-file <file>` (not both); undefined when neither is given. */
export async function jsonFromFlagOrFile(
  deps: CliDeps,
  text: string | undefined,
  file: string | undefined,
  flag: string,
): Promise<unknown> {
  if (text !== undefined && file !== undefined) {
    throw new VaultError('USAGE', `give ${flag} or ${flag}-file, not both`);
  }
  const source: JsonSource | undefined =
    text !== undefined ? textSource(text, flag) : file !== undefined ? fileSource(deps, file) : undefined;
  return source === undefined ? undefined : readJson(deps, source);
}

/** The text of `--code-file <file>` (`-` for standard input). */
export function readCodeFile(deps: CliDeps, file: string): Promise<string> {
  return readText(deps, fileSource(deps, file));
}

export function formulaEntries(formula: ReactorFormula): Array<[string, string]> {
  return [
    ['ID', formula.id],
    ['Name', formula.name],
    ['Type', formula.type],
    ['Status', formula.status],
    ['Description', formula.description ?? ''],
    ['Configuration', formula.configuration.map((s) => `${s.name}: ${s.type}`).join(', ')],
    [
      'Request parameters',
      formula.request_parameters
        .map((p) => `${p.name}: ${p.type}${p.optional ? ' (optional)' : ''}`)
        .join(', '),
    ],
    ['Code', `${formula.code.split('\n').length} lines (--json shows it)`],
    ['Created', formula.created_at],
  ];
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

/** Every item of a paginated service list. */
export async function allPages<T>(
  list: (page: { page: number; size: number }) => Promise<{ total: number; items: T[] }>,
): Promise<T[]> {
  const size = 100;
  const items: T[] = [];
  for (let page = 1; ; page++) {
    const result = await list({ page, size });
    items.push(...result.items);
    if (result.items.length < size || items.length >= result.total) return items;
  }
}
