import { readFile } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import { VaultError } from '../../../core/errors/catalogue.ts';
import type { Proxy, ProxyInput } from '../../../core/proxies/index.ts';
import type { Tenant } from '../../../core/services-contract.ts';
import type { Principal } from '../../../core/access/principal.ts';
import { keyedRecord } from '../../../core/validation/keyed-record.ts';
import {
  addVaultOptions,
  vaultOptionsFrom,
  type RawOptions,
  type VaultCommandOptions,
} from '../../options/config-flags.ts';
import { completesWith } from '../../options/completion-values.ts';
import { addTenantOption } from '../../options/tenant.ts';
import { collectList } from '../../options/values.ts';
import { writeRecord } from '../../output/table.ts';
import { writeJson } from '../../output/write.ts';
import { commandOf } from '../../program/command-kit.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import type { CliServices } from '../../services/contract.ts';
import { findInTenants } from '../../tenancy/tenant-scope.ts';

export const PROXY_ID_HELP = "the proxy's id (see 'svc proxy list')";

/** Flags shared by create and update; absent flags are undefined (update keeps the current value). */
export interface ProxyFieldOptions {
  readonly name: string | undefined;
  readonly destinationUrl: string | undefined;
  readonly requestTransformFile: string | undefined;
  readonly responseTransformFile: string | undefined;
  /** An application id, or `none` to clear it. */
  readonly application: string | undefined;
  readonly configuration: readonly string[] | undefined;
  readonly requireAuth: boolean | undefined;
}

/** The options of proxy create and update: the proxy's fields, --tenant and the vault's. */
export interface ProxyFieldsOptions extends VaultCommandOptions, ProxyFieldOptions {
  readonly tenant: string | undefined;
}

interface RawProxyFields {
  name?: string;
  destinationUrl?: string;
  requestTransformFile?: string;
  responseTransformFile?: string;
  application?: string;
  set?: string[];
  requireAuth?: string;
}

function addProxyFieldOptions(command: Command): Command {
  return command
    .option('--name <name>', 'proxy name')
    .option('--destination-url <url>', 'https:// URL with a DNS host name requests are forwarded to')
    .option('--request-transform-file <file>', 'JavaScript module run on each request before forwarding')
    .option('--response-transform-file <file>', 'JavaScript module run on each 2xx destination response')
    .addOption(
      completesWith(
        new Option(
          '--application <id>',
          "application whose grants detokenize for the proxy ('none' to clear)",
        ),
        { ids: 'application' },
      ),
    )
    .option(
      '--set <name=value>',
      'configuration entry for transforms (repeatable; replaces all entries)',
      collectList,
    )
    .option('--require-auth <true|false>', 'whether SVC-API-KEY is required to invoke (default true)');
}

function proxyFieldsFrom(raw: RawProxyFields): ProxyFieldOptions {
  let requireAuth: boolean | undefined;
  if (raw.requireAuth !== undefined) {
    const text = raw.requireAuth.trim().toLowerCase();
    if (text !== 'true' && text !== 'false')
      throw new VaultError('USAGE', '--require-auth takes true or false');
    requireAuth = text === 'true';
  }
  return {
    name: raw.name,
    destinationUrl: raw.destinationUrl,
    requestTransformFile: raw.requestTransformFile,
    responseTransformFile: raw.responseTransformFile,
    application: raw.application,
    configuration: raw.set,
    requireAuth,
  };
}

/**
 * Proxy create and update: adds the field options, --tenant and the vault's to `command`, and an
 * action that hands `act` the parsed options and the positional arguments.
 */
export function proxyFieldsAction(
  command: Command,
  deps: CliDeps,
  act: (options: ProxyFieldsOptions, args: readonly unknown[]) => Promise<void>,
): Command {
  addProxyFieldOptions(command);
  addTenantOption(command, deps);
  addVaultOptions(command, deps);
  return command.action(async (...args: unknown[]) => {
    const raw = commandOf(args).opts<RawOptions & RawProxyFields & { tenant?: string }>();
    await act({ ...vaultOptionsFrom(raw), ...proxyFieldsFrom(raw), tenant: raw.tenant }, args);
  });
}

function parseConfiguration(entries: readonly string[]): Record<string, string> {
  const out = keyedRecord<string>();
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    if (eq <= 0) throw new VaultError('USAGE', `--set takes name=value, not '${entry}'`);
    out[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return out;
}

async function readCode(file: string, flag: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    throw new VaultError('USAGE', `${flag}: cannot read ${file}`);
  }
}

/** The service input: the flags given over `current` (none for create). Files are read here, before the vault opens. */
export async function proxyInputFrom(options: ProxyFieldOptions, current: Proxy | null): Promise<ProxyInput> {
  const request =
    options.requestTransformFile === undefined
      ? (current?.request_transform ?? null)
      : { code: await readCode(options.requestTransformFile, '--request-transform-file') };
  const response =
    options.responseTransformFile === undefined
      ? (current?.response_transform ?? null)
      : { code: await readCode(options.responseTransformFile, '--response-transform-file') };
  const application =
    options.application === undefined
      ? current?.application_id === null || current === null
        ? null
        : { id: current.application_id }
      : options.application === 'none'
        ? null
        : { id: options.application };
  return {
    name: options.name ?? current?.name ?? '',
    destination_url: options.destinationUrl ?? current?.destination_url ?? '',
    request_transform: request,
    response_transform: response,
    application,
    configuration:
      options.configuration === undefined
        ? (current?.configuration ?? {})
        : parseConfiguration(options.configuration),
    require_auth: options.requireAuth ?? current?.require_auth ?? true,
  };
}

export interface FoundProxy {
  readonly tenant: Tenant;
  readonly principal: Principal;
  readonly proxy: Proxy;
}

/** A proxy by id in any tenant of the vault (or in `--tenant`). */
export async function findProxy(
  services: Pick<CliServices, 'tenants' | 'proxies'>,
  id: string,
  requestedTenant: string | undefined,
): Promise<FoundProxy> {
  const where = requestedTenant === undefined ? 'this vault' : `tenant ${requestedTenant}`;
  return findInTenants(
    services,
    requestedTenant,
    async (principal, tenant) => ({ tenant, principal, proxy: await services.proxies.get(principal, id) }),
    `no proxy ${id} in ${where} (see 'svc proxy list')`,
  );
}

/** A proxy: JSON under --json, else a record. */
export function printProxy(deps: CliDeps, options: VaultCommandOptions, proxy: Proxy): void {
  if (options.json) writeJson(deps.stdout, proxy);
  else writeRecord(deps, proxyEntries(proxy));
}

/** One proxy as key/value lines; transform code is summarised, never printed in full. */
function proxyEntries(proxy: Proxy): Array<[string, string]> {
  const code = (t: { code: string } | null) => (t === null ? '(none)' : `${t.code.split('\n').length} lines`);
  return [
    ['id', proxy.id],
    ['name', proxy.name],
    ['key', proxy.key],
    ['destination_url', proxy.destination_url],
    ['require_auth', String(proxy.require_auth)],
    ['application_id', proxy.application_id ?? '(none)'],
    ['configuration', Object.keys(proxy.configuration).join(', ') || '(none)'],
    ['request_transform', code(proxy.request_transform)],
    ['response_transform', code(proxy.response_transform)],
    ['tenant_id', proxy.tenant_id],
    ['created_at', proxy.created_at],
    ['modified_at', proxy.modified_at ?? ''],
  ];
}
