import type { Kysely, Selectable } from 'kysely';
import type { Principal } from '../access/principal.ts';
import { appendAudit } from '../audit/audit-log.ts';
import type { AuditOperation } from '../audit/entity-types.ts';
import { VaultError } from '../errors/catalogue.ts';
import { compileOnce, runCompiled } from '../storage/compiled-queries.ts';
import type { Database, ProxiesTable } from '../storage/schema.ts';
import type { VaultHandle } from '../vault/types.ts';
import { keyedRecord } from '../validation/keyed-record.ts';
import { updateAuthenticatedRow, verified, verifiedRows } from '../integrity/row-authenticator.ts';
import type { RowKeys } from '../integrity/row-authenticator.ts';
import type { Proxy } from './contract.ts';
import { SEALED_PROXY_FIELDS } from './proxy-secrets.ts';
import type { ProxySecrets, SealedProxyField } from './proxy-secrets.ts';

export const PROXY_ENTITY = 'proxy';
/** Audit entity id of invocations through `SVC-PROXY-URL`, which have no proxy row. */
export const EPHEMERAL_PROXY_ID = 'ephemeral';

export type ProxyRow = Selectable<ProxiesTable>;

/** Fixed wording: names are caller-chosen text and stay out of audit messages. */
export const PROXY_MESSAGES = {
  create: 'Proxy created',
  read: 'Proxy read',
  update: 'Proxy updated',
  delete: 'Proxy deleted',
} as const;

function parseConfiguration(json: string, id: string): Record<string, string> {
  const parsed: unknown = JSON.parse(json);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new VaultError('VAULT_CORRUPT', `Proxy ${id} has a malformed stored configuration.`);
  const out = keyedRecord<string>();
  for (const [name, value] of Object.entries(parsed)) if (typeof value === 'string') out[name] = value;
  return out;
}

/**
 * The row with its sealed fields (configuration, transform code) opened. `fields` limits which
 * are opened; the others read as empty (the configuration `{}`, no transform code), for callers
 * that do not use them.
 */
export async function openProxyRow(
  db: Kysely<Database>,
  secrets: ProxySecrets,
  row: ProxyRow,
  fields: readonly SealedProxyField[] = SEALED_PROXY_FIELDS,
): Promise<ProxyRow> {
  const opened = { ...row };
  for (const field of SEALED_PROXY_FIELDS) {
    const stored = row[field];
    if (stored === null) continue;
    if (fields.includes(field)) opened[field] = await secrets.open(db, row.tenant_id, row.id, field, stored);
    else if (field === 'configuration') opened.configuration = '{}';
    else opened[field] = null;
  }
  return opened;
}

/** The values of the sealed fields as stored: each sealed for this proxy and field. */
export async function sealProxyFields(
  trx: Kysely<Database>,
  secrets: ProxySecrets,
  proxy: { id: string; tenant_id: string },
  plain: Pick<ProxyRow, 'configuration' | 'request_transform' | 'response_transform'>,
): Promise<Pick<ProxyRow, 'configuration' | 'request_transform' | 'response_transform'>> {
  const sealed = { ...plain };
  for (const field of SEALED_PROXY_FIELDS) {
    const value = plain[field];
    if (value !== null) sealed[field] = await secrets.seal(trx, proxy.tenant_id, proxy.id, field, value);
  }
  return sealed;
}

/** The API view of a row whose sealed fields are open (`openProxyRow`). */
export function proxyOf(row: Omit<ProxyRow, 'row_mac'>): Proxy {
  return {
    id: row.id,
    key: row.key,
    tenant_id: row.tenant_id,
    name: row.name,
    destination_url: row.destination_url,
    request_transform: row.request_transform === null ? null : { code: row.request_transform },
    response_transform: row.response_transform === null ? null : { code: row.response_transform },
    application_id: row.application_id,
    configuration: parseConfiguration(row.configuration, row.id),
    require_auth: row.require_auth !== 0,
    created_by: row.created_by,
    created_at: row.created_at,
    modified_by: row.modified_by,
    modified_at: row.modified_at,
  };
}

export async function auditProxy(
  trx: Kysely<Database>,
  vault: Pick<VaultHandle, 'keyedHash' | 'clock'>,
  actor: Principal | null,
  proxy: { id: string; tenant_id: string },
  operation: AuditOperation,
  message: string,
): Promise<void> {
  await appendAudit(trx, vault, actor, {
    tenantId: proxy.tenant_id,
    entityType: PROXY_ENTITY,
    entityId: proxy.id,
    operation,
    message,
  });
}

/** The proxy's stored row (sealed fields as stored), verified against its MAC, or undefined. */
export async function findProxyRow(
  db: Kysely<Database>,
  keys: RowKeys,
  id: string,
): Promise<ProxyRow | undefined> {
  return verified(
    keys,
    'proxies',
    await db.selectFrom('proxies').selectAll().where('id', '=', id).executeTakeFirst(),
  );
}

/**
 * Before an application is deleted, the proxies attached to it lose it, each stored with a new
 * MAC: the database's own `on delete set null` would change their rows without one, and every
 * such proxy would then be refused as tampered.
 */
export async function detachProxiesFrom(
  trx: Kysely<Database>,
  keys: RowKeys,
  application: { readonly id: string; readonly tenant_id: string },
): Promise<void> {
  const rows = await trx
    .selectFrom('proxies')
    .selectAll()
    .where('tenant_id', '=', application.tenant_id)
    .where('application_id', '=', application.id)
    .execute();
  for (const row of verifiedRows(keys, 'proxies', rows)) {
    await updateAuthenticatedRow(trx, keys, 'proxies', row, { application_id: null });
  }
}

/**
 * The proxy a request names by its key, verified: its destination, transforms, application and
 * `require_auth` decide where data goes and who may send it. The lookup is compiled once instead
 * of built per request.
 */
export async function findProxyByKey(
  db: Kysely<Database>,
  keys: RowKeys,
  key: string,
): Promise<ProxyRow | undefined> {
  const query = compileOnce(db, 'proxies:by-key', 1, () =>
    db.selectFrom('proxies').selectAll().where('key', '=', ''),
  );
  return verified(keys, 'proxies', (await runCompiled(db, query, [key])).rows[0]);
}

/** SQL LIKE pattern for the `name` filter: `*` is the wildcard; LIKE's own `%`, `_` are literal. */
export function namePattern(filter: string): string {
  const escaped = filter.replace(/[\\%_]/g, (c) => `\\${c}`);
  return filter.includes('*') ? escaped.replace(/\*/g, '%') : `%${escaped}%`;
}
