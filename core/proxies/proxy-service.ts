import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { authorize, authorizedLookup } from '../access/authorize.ts';
import { withShownActors } from '../access/actor-ids.ts';
import { actorOf, type Principal } from '../access/principal.ts';
import { randomBase62 } from '../crypto/api-key.ts';
import { VaultError, validationError } from '../errors/catalogue.ts';
import type { Page } from '../common-types.ts';
import type { Database } from '../storage/schema.ts';
import { FieldErrorCollector, NAME_MAX, checkPage } from '../validation/fields.ts';
import { TenantKeys } from '../crypto/tenant-keys.ts';
import { codeProblemOf, type Sandbox } from '../sandbox/index.ts';
import { attachableApplication } from '../tenancy/attachable-application.ts';
import type { VaultHandle } from '../vault/types.ts';
import { updateAuthenticatedRow, verifiedRows, withRowMac } from '../integrity/row-authenticator.ts';
import type { RowKeys } from '../integrity/row-authenticator.ts';
import type { Proxy, ProxyService, TransformChecker } from './contract.ts';
import { checkProxyInput, type CheckedProxy } from './proxy-input.ts';
import { ProxySecrets } from './proxy-secrets.ts';
import {
  PROXY_MESSAGES,
  auditProxy,
  findProxyRow,
  namePattern,
  openProxyRow,
  proxyOf,
  sealProxyFields,
  type ProxyRow,
} from './proxy-store.ts';

/** Proxies per page, and ids per `id` filter. */
export const MAX_PROXY_PAGE_SIZE = 100;
/** Proxy keys: 32 base62 characters (≈190 bits), letters and digits only, so safe in a URL and a header. */
const PROXY_KEY_CHARS = 32;

export function generateProxyKey(): string {
  return randomBase62(PROXY_KEY_CHARS);
}

/** Transforms need the sandbox; a service built without one refuses them rather than store code it cannot run. */
export const transformsUnsupported: TransformChecker = () => {
  throw validationError(
    { transform: ['proxy transforms are not supported without a sandbox; leave them out'] },
    'Proxy transforms are not supported here.',
  );
};

/** Compiles transform code in the sandbox (without running its function). */
export function sandboxTransformChecker(sandbox: Pick<Sandbox, 'checkModuleCode'>): TransformChecker {
  return async (code, tenant) => {
    const problem = await sandbox.checkModuleCode(code, tenant);
    return problem === null ? null : codeProblemOf(problem.detail);
  };
}

function notFound(): VaultError {
  return new VaultError('NOT_FOUND', 'No such proxy.');
}

/** The proxy `id` (any case) for a permission. */
const loadFor = authorizedLookup(
  (trx: Kysely<Database>, keys: RowKeys, id: string): Promise<ProxyRow | undefined> =>
    findProxyRow(trx, keys, typeof id === 'string' ? id.toLowerCase() : ''),
  notFound,
);

async function compileTransforms(
  checker: TransformChecker,
  input: CheckedProxy,
  tenant: string,
): Promise<void> {
  const errors = new FieldErrorCollector();
  for (const [field, code] of [
    ['request_transform.code', input.requestTransform],
    ['response_transform.code', input.responseTransform],
  ] as const) {
    if (code === null) continue;
    const problem = await checker(code, tenant);
    if (problem === null) continue;
    const where = problem.line === null ? '' : `line ${problem.line}, column ${problem.column ?? 1}: `;
    errors.add(field, `${where}${problem.message}`);
  }
  if (!errors.empty)
    throw new VaultError('UNPROCESSABLE', 'The transform code does not compile.', { errors: errors.errors });
}

/**
 * A proxy runs as its application: creating or changing one that has an application (whatever the
 * change: code, destination, require_auth, configuration) is attaching it, under the grant ceiling.
 */
async function checkApplication(
  trx: Kysely<Database>,
  keys: RowKeys,
  principal: Principal,
  id: string | null,
): Promise<void> {
  if (id !== null) await attachableApplication(trx, keys, principal, id);
}

function columns(input: CheckedProxy) {
  return {
    name: input.name,
    destination_url: input.destinationUrl,
    request_transform: input.requestTransform,
    response_transform: input.responseTransform,
    application_id: input.applicationId,
    configuration: JSON.stringify(input.configuration),
    require_auth: input.requireAuth ? 1 : 0,
  };
}

/**
 * Proxy management. Validation (including compiling transforms) happens before the transaction;
 * each change and each read writes its audit entry in the transaction that does it.
 */
export function createProxyService(
  vault: VaultHandle,
  options: { checkTransform?: TransformChecker; keys?: TenantKeys } = {},
): ProxyService {
  const checker = options.checkTransform ?? transformsUnsupported;
  const secrets = new ProxySecrets(options.keys ?? new TenantKeys(vault));
  const view = async (trx: Kysely<Database>, principal: Principal, row: ProxyRow) =>
    withShownActors(principal, proxyOf(await openProxyRow(trx, secrets, row)));

  return {
    async create(principal, input) {
      authorize(principal, 'proxy:create');
      const checked = checkProxyInput(input);
      await compileTransforms(checker, checked, principal.tenantId);
      return vault.transaction(async (trx) => {
        await checkApplication(trx, vault, principal, checked.applicationId);
        const row: Omit<ProxyRow, 'row_mac'> = {
          id: randomUUID(),
          tenant_id: principal.tenantId,
          key: generateProxyKey(),
          ...columns(checked),
          created_by: actorOf(principal).actor_id,
          created_at: vault.clock.now().toISOString(),
          modified_by: null,
          modified_at: null,
        };
        const sealed = await sealProxyFields(trx, secrets, row, row);
        // The MAC covers what is stored: the sealed fields as sealed.
        await trx
          .insertInto('proxies')
          .values(withRowMac(vault, 'proxies', { ...row, ...sealed }))
          .execute();
        await auditProxy(trx, vault, principal, row, 'create', PROXY_MESSAGES.create);
        return proxyOf(row);
      });
    },

    async list(principal, filter, page) {
      authorize(principal, 'proxy:read');
      const { offset, limit } = checkPage(page, MAX_PROXY_PAGE_SIZE);
      const errors = new FieldErrorCollector();
      if (filter.ids !== undefined && filter.ids.length > MAX_PROXY_PAGE_SIZE)
        errors.add('id', `at most ${MAX_PROXY_PAGE_SIZE} ids`);
      if (filter.name !== undefined && filter.name.length > NAME_MAX)
        errors.add('name', `must be at most ${NAME_MAX} characters`);
      errors.throwIfAny();
      return vault.transaction(async (trx): Promise<Page<Proxy>> => {
        let query = trx.selectFrom('proxies').where('tenant_id', '=', principal.tenantId);
        if (filter.ids !== undefined && filter.ids.length > 0)
          query = query.where(
            'id',
            'in',
            filter.ids.map((id) => id.toLowerCase()),
          );
        if (filter.name !== undefined && filter.name !== '')
          query = query.where(sql<boolean>`lower(name) like lower(${namePattern(filter.name)}) escape '\\'`);
        const count = await query.select((e) => e.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
        const rows = verifiedRows(
          vault,
          'proxies',
          await query.selectAll().orderBy('created_at').orderBy('id').limit(limit).offset(offset).execute(),
        );
        const items: Proxy[] = [];
        for (const row of rows) {
          await auditProxy(trx, vault, principal, row, 'read', PROXY_MESSAGES.read);
          items.push(await view(trx, principal, row));
        }
        return { total: Number(count.n), items };
      });
    },

    async get(principal, id) {
      return vault.transaction(async (trx) => {
        const row = await loadFor(principal, 'proxy:read', trx, vault, id);
        await auditProxy(trx, vault, principal, row, 'read', PROXY_MESSAGES.read);
        return view(trx, principal, row);
      });
    },

    async update(principal, id, input) {
      authorize(principal, 'proxy:update');
      const checked = checkProxyInput(input);
      await compileTransforms(checker, checked, principal.tenantId);
      return vault.transaction(async (trx) => {
        const row = await loadFor(principal, 'proxy:update', trx, vault, id);
        await checkApplication(trx, vault, principal, checked.applicationId);
        const changes = {
          ...columns(checked),
          modified_at: vault.clock.now().toISOString(),
          modified_by: actorOf(principal).actor_id,
        };
        const sealed = await sealProxyFields(trx, secrets, row, changes);
        await updateAuthenticatedRow(trx, vault, 'proxies', row, { ...changes, ...sealed });
        await auditProxy(trx, vault, principal, row, 'update', PROXY_MESSAGES.update);
        return withShownActors(principal, proxyOf({ ...row, ...changes }));
      });
    },

    async delete(principal, id) {
      await vault.transaction(async (trx) => {
        const row = await loadFor(principal, 'proxy:delete', trx, vault, id);
        await trx.deleteFrom('proxies').where('id', '=', row.id).execute();
        await auditProxy(trx, vault, principal, row, 'delete', PROXY_MESSAGES.delete);
      });
    },
  };
}
