/**
 * `ReactorService` (contract.ts) over one open vault: formulas (official ones from the code,
 * private ones per tenant) and reactors, with audit entries in the transaction of every change and
 * one `invoke` entry per invocation. Formula code is checked in the sandbox before any transaction
 * opens (a problem is a warning of the save, not a refusal), and reactor code runs in the sandbox's
 * worker threads, never under the vault's lock.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { authorize } from '../access/authorize.ts';
import { withShownActors } from '../access/actor-ids.ts';
import { actorOf } from '../access/principal.ts';
import type { Principal } from '../access/principal.ts';
import { appendAudit } from '../audit/audit-log.ts';
import type { AuditOperation } from '../audit/entity-types.ts';
import { SealedText, reactorConfigurationContext } from '../crypto/sealed-text.ts';
import { TenantKeys } from '../crypto/tenant-keys.ts';
import type { Detokenizer } from '../detokenize/index.ts';
import { VaultError, isVaultError, validationError } from '../errors/catalogue.ts';
import type { Sandbox } from '../sandbox/index.ts';
import type { Application } from '../tenancy/contract.ts';
import type { Database, ReactorFormulasTable, ReactorsTable } from '../storage/schema.ts';
import { applicationOf, findApplicationRow } from '../tenancy/application-store.ts';
import { attachableApplication } from '../tenancy/attachable-application.ts';
import { assertMayAttach } from '../tenancy/grant-ceiling.ts';
import type { TokenService } from '../tokens/contract.ts';
import { readAuditOf } from '../tokens/read-audit.ts';
import { FieldErrorCollector, checkName, checkPage } from '../validation/fields.ts';
import type { VaultHandle } from '../vault/types.ts';
import type {
  ConfigurationSetting,
  ConfigurationValue,
  FormulaWarning,
  ReactResult,
  Reactor,
  ReactorFormula,
  ReactorInput,
  ReactorService,
  RequestParameter,
} from './contract.ts';
import { checkFormulaInput } from './formula-input.ts';
import { formulaWarningOf } from './formula-warning.ts';
import type { CheckedFormula } from './formula-input.ts';
import { OFFICIAL_FORMULAS, officialFormula } from './official-formulas.ts';
import { checkArgs, checkConfiguration } from './parameters.ts';
import { applicationPrincipal, svcBridge } from './svc-bridge.ts';
import { isPlainObject } from '../validation/json-value.ts';
import { deepFreeze } from '../validation/deep-freeze.ts';
import { TableCache } from '../storage/table-changes.ts';
import {
  updateAuthenticatedRow,
  verified,
  verifiedRows,
  withRowMac,
} from '../integrity/row-authenticator.ts';

export const MAX_REACTOR_PAGE_SIZE = 100;
/** Reactors kept loaded per vault for invocations before the map is cleared. */
export const MAX_CACHED_REACTORS = 1000;
/**
 * What a loaded reactor is read from: its row, its formula, its application, the tenant keys that
 * open its configuration, and tenants (whose delete cascades to all of them).
 */
const REACTOR_TABLES = ['reactors', 'reactor_formulas', 'applications', 'tenant_keys', 'tenants'] as const;
export const FORMULA_ENTITY = 'reactorFormula';
export const REACTOR_ENTITY = 'reactor';

export const REACTOR_MESSAGES = {
  formulaCreate: 'Reactor formula created',
  formulaUpdate: 'Reactor formula updated',
  formulaDelete: 'Reactor formula deleted',
  create: 'Reactor created',
  update: 'Reactor updated',
  delete: 'Reactor deleted',
  invoke: 'Reactor invoked',
  invokeFailed: 'Reactor invocation failed',
} as const;

export interface ReactorServiceDeps {
  readonly tokens: TokenService;
  readonly detokenizer: Detokenizer;
  readonly sandbox: Sandbox;
  /** The tenant keys that seal a reactor's configuration at rest. */
  readonly keys?: TenantKeys;
}

type FormulaRow = ReactorFormulasTable;
type ReactorRow = ReactorsTable;

function corrupt(what: string): VaultError {
  return new VaultError('VAULT_CORRUPT', `A stored ${what} is malformed.`);
}

function parseJson<T>(text: string, what: string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw corrupt(what);
  }
}

function formulaOf(row: Omit<FormulaRow, 'row_mac'>): ReactorFormula {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    type: 'private',
    status: row.status === 'coming_soon' ? 'coming_soon' : 'verified',
    icon: row.icon,
    code: row.code,
    configuration: parseJson<ConfigurationSetting[]>(row.configuration, 'formula configuration'),
    request_parameters: parseJson<RequestParameter[]>(row.request_parameters, 'formula request parameters'),
    created_by: row.created_by,
    created_at: row.created_at,
    modified_by: row.modified_by,
    modified_at: row.modified_at,
  };
}

/** `*` matches any run of characters; without one, the name contains the text. Case-insensitive. */
export function nameMatcher(pattern: string | undefined): ((name: string) => boolean) | undefined {
  if (pattern === undefined || pattern === '') return undefined;
  const parts = pattern.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const body = parts.join('.*');
  const regex = new RegExp(pattern.includes('*') ? `^${body}$` : body, 'is');
  return (name) => regex.test(name);
}

function notFound(what: string): VaultError {
  return new VaultError('NOT_FOUND', `No such ${what}.`);
}

/** The `id` of a `{ id }` reference (or of a whole object carrying one), else a 400 naming `field`. */
function referenceId(value: unknown, field: string): string | null {
  if (value === undefined || value === null) return null;
  if (isPlainObject(value) && typeof value['id'] === 'string' && value['id'] !== '') return value['id'];
  throw validationError({ [`${field}.id`]: ['is required'] });
}

export function createReactorService(vault: VaultHandle, deps: ReactorServiceDeps): ReactorService {
  const { sandbox, tokens, detokenizer } = deps;
  // A reactor's configuration may hold secrets (API keys of the services it calls): sealed at rest.
  const sealed = new SealedText(deps.keys ?? new TenantKeys(vault));
  const sealConfiguration = (trx: Kysely<Database>, tenantId: string, reactorId: string, json: string) =>
    sealed.seal(trx, tenantId, reactorConfigurationContext(reactorId), json);

  const audit = (
    trx: Kysely<Database>,
    principal: Principal,
    entityType: string,
    entityId: string,
    operation: AuditOperation,
    message: string,
  ) =>
    appendAudit(trx, vault, principal, {
      tenantId: principal.tenantId,
      entityType,
      entityId,
      operation,
      message,
    });

  /** The tenant's private formula `id`, verified: its code is what runs with a reactor's application. */
  const formulaRow = async (
    db: Kysely<Database>,
    principal: Principal,
    id: string,
  ): Promise<FormulaRow | undefined> =>
    verified(
      vault,
      'reactor_formulas',
      await db
        .selectFrom('reactor_formulas')
        .selectAll()
        .where('tenant_id', '=', principal.tenantId)
        .where('id', '=', id.toLowerCase())
        .executeTakeFirst(),
    );

  const findFormula = async (
    db: Kysely<Database>,
    principal: Principal,
    id: string,
  ): Promise<ReactorFormula | undefined> => {
    const official = officialFormula(id);
    if (official !== undefined) return official;
    const row = await formulaRow(db, principal, id);
    return row === undefined ? undefined : withShownActors(principal, formulaOf(row));
  };

  const privateFormulaRow = async (
    trx: Kysely<Database>,
    principal: Principal,
    id: string,
  ): Promise<FormulaRow> => {
    if (officialFormula(id) !== undefined) {
      throw new VaultError('FORBIDDEN', 'Official formulas are read-only.');
    }
    const row = await formulaRow(trx, principal, id);
    if (row === undefined) throw notFound('reactor formula');
    return row;
  };

  /**
   * Code that does not compile is saved and fails at invocation, as clients of the API expect; the
   * check runs anyway, so the save can warn with the same text and position.
   */
  const codeWarnings = async (checked: CheckedFormula, tenant: string): Promise<FormulaWarning[]> => {
    const problem = await sandbox.checkModuleCode(checked.code, tenant);
    return problem === null ? [] : [formulaWarningOf(problem.detail)];
  };

  const formulaColumns = (checked: CheckedFormula) => ({
    name: checked.name,
    description: checked.description,
    status: checked.status,
    icon: checked.icon,
    code: checked.code,
    configuration: JSON.stringify(checked.configuration),
    request_parameters: JSON.stringify(checked.request_parameters),
  });

  const applicationFor = async (
    db: Kysely<Database>,
    principal: Principal,
    id: string | null,
  ): Promise<Application | null> => {
    if (id === null) return null;
    const row = await findApplicationRow(db, vault, id.toLowerCase());
    return row === undefined || row.tenant_id !== principal.tenantId
      ? null
      : withShownActors(principal, applicationOf(row));
  };

  const reactorOf = async (
    db: Kysely<Database>,
    principal: Principal,
    row: Omit<ReactorRow, 'row_mac'>,
  ): Promise<Reactor> => {
    const formula = await findFormula(db, principal, row.formula_id);
    if (formula === undefined) throw corrupt('reactor formula reference');
    return withShownActors(principal, {
      id: row.id,
      tenant_id: row.tenant_id,
      name: row.name,
      formula,
      configuration: parseJson<Record<string, ConfigurationValue>>(
        await sealed.open(db, row.tenant_id, reactorConfigurationContext(row.id), row.configuration),
        'reactor configuration',
      ),
      application: await applicationFor(db, principal, row.application_id),
      created_by: row.created_by,
      created_at: row.created_at,
      modified_by: row.modified_by,
      modified_at: row.modified_at,
    });
  };

  const reactorRow = async (db: Kysely<Database>, principal: Principal, id: string): Promise<ReactorRow> => {
    // Its formula, application and configuration decide what an invocation does and as whom.
    const row = verified(
      vault,
      'reactors',
      await db
        .selectFrom('reactors')
        .selectAll()
        .where('tenant_id', '=', principal.tenantId)
        .where('id', '=', typeof id === 'string' ? id.toLowerCase() : '')
        .executeTakeFirst(),
    );
    if (row === undefined) throw notFound('reactor');
    return row;
  };

  /** Name, configuration (against the formula) and application of a reactor body. */
  const checkReactorBody = async (
    db: Kysely<Database>,
    principal: Principal,
    input: ReactorInput,
    formula: ReactorFormula,
  ) => {
    const collector = new FieldErrorCollector();
    const name = checkName(collector, input.name);
    collector.throwIfAny();
    const configuration = checkConfiguration(input.configuration ?? {}, formula.configuration);
    const applicationId = referenceId(input.application, 'application');
    // A reactor runs as its application: creating or changing one that has an application is
    // attaching it, under the grant ceiling, whatever the change.
    const application =
      applicationId === null ? null : await attachableApplication(db, vault, principal, applicationId);
    return { name, configuration, application };
  };

  /**
   * Invocations take the reactor (formula, opened configuration, application) from memory on the
   * embedded vault, as long as none of REACTOR_TABLES was written since it was loaded
   * (core/storage/table-changes.ts); PostgreSQL (other servers write the same rows) loads it each time.
   */
  const loaded =
    vault.changes === null
      ? null
      : new TableCache<Reactor>(vault.changes, REACTOR_TABLES, MAX_CACHED_REACTORS);
  const reactorToInvoke = async (principal: Principal, id: string): Promise<Reactor> => {
    const key = `${principal.tenantId}\u0000${typeof id === 'string' ? id.toLowerCase() : ''}`;
    const cached = loaded?.get(key);
    if (cached !== undefined) return cached;
    const version = loaded?.version() ?? 0;
    const reactor = await reactorOf(vault.db, principal, await reactorRow(vault.db, principal, id));
    // Shared by the invocations that follow: nothing may modify it.
    loaded?.set(key, version, deepFreeze(reactor));
    return reactor;
  };

  const run = async (principal: Principal, reactor: Reactor, args: unknown): Promise<ReactResult> => {
    if (args !== undefined && args !== null && !isPlainObject(args))
      throw validationError({ args: ['must be an object'] });
    const detokenized = await detokenizer.detokenize(principal, args ?? {}, {
      permission: 'token:use',
      field: 'args',
    });
    const checkedArgs = checkArgs(detokenized, reactor.formula.request_parameters);
    let configuration: Record<string, ConfigurationValue>;
    try {
      configuration = checkConfiguration(reactor.configuration, reactor.formula.configuration);
    } catch (error) {
      if (isVaultError(error, 'VALIDATION_FAILED')) {
        throw new VaultError('VALIDATION_FAILED', 'Invalid Reactor Configuration', { errors: error.errors });
      }
      throw error;
    }
    const actsAs = reactor.application === null ? null : applicationPrincipal(reactor.application);
    const outcome = await sandbox.runModule({
      tenant: reactor.tenant_id,
      code: reactor.formula.code,
      args: checkedArgs,
      configuration,
      svc: actsAs === null ? null : svcBridge(tokens, actsAs),
    });
    if (outcome.kind === 'problem') throw outcome.error;
    if (outcome.kind === 'custom-response') return outcome;
    const output = outcome.output;
    if (output !== null && !isPlainObject(output)) {
      throw new VaultError('REACTOR_RUNTIME', 'Reactor Runtime Error', {
        errors: { error: ['the reactor code must return an object with raw and/or tokenize'] },
      });
    }
    const body: { raw?: unknown; tokens?: unknown } = {};
    if (output !== null && output['raw'] !== undefined) body.raw = output['raw'];
    if (output !== null && output['tokenize'] !== undefined) {
      if (actsAs === null) {
        throw new VaultError('VALIDATION_FAILED', 'Invalid Reactor Configuration', {
          errors: { application: ['the reactor needs an application to tokenize its output'] },
        });
      }
      body.tokens = await tokens.tokenize(actsAs, output['tokenize']);
    }
    return { kind: 'response', body };
  };

  return {
    async createFormula(principal, input) {
      authorize(principal, 'reactor:create');
      const checked = checkFormulaInput(input);
      const warnings = await codeWarnings(checked, principal.tenantId);
      const formula = await vault.transaction(async (trx) => {
        const row: FormulaRow = withRowMac(vault, 'reactor_formulas', {
          id: randomUUID(),
          tenant_id: principal.tenantId,
          ...formulaColumns(checked),
          created_by: actorOf(principal).actor_id,
          created_at: vault.clock.now().toISOString(),
          modified_by: null,
          modified_at: null,
        });
        await trx.insertInto('reactor_formulas').values(row).execute();
        await audit(trx, principal, FORMULA_ENTITY, row.id, 'create', REACTOR_MESSAGES.formulaCreate);
        return formulaOf(row);
      });
      return { formula, warnings };
    },

    async listFormulas(principal, filter, page) {
      authorize(principal, 'reactor:read');
      const window = checkPage(page, MAX_REACTOR_PAGE_SIZE);
      const matches = nameMatcher(filter.name);
      const ids = filter.ids?.map((id) => id.toLowerCase());
      const keep = (f: ReactorFormula) =>
        (ids === undefined || ids.includes(f.id)) && (matches?.(f.name) ?? true);
      const rows = verifiedRows(
        vault,
        'reactor_formulas',
        await vault.db
          .selectFrom('reactor_formulas')
          .selectAll()
          .where('tenant_id', '=', principal.tenantId)
          .orderBy('created_at')
          .orderBy('id')
          .execute(),
      );
      const all = [
        ...OFFICIAL_FORMULAS,
        ...rows.map((row) => withShownActors(principal, formulaOf(row))),
      ].filter(keep);
      return { total: all.length, items: all.slice(window.offset, window.offset + window.limit) };
    },

    async getFormula(principal, id) {
      authorize(principal, 'reactor:read');
      const formula = await findFormula(vault.db, principal, id);
      if (formula === undefined) throw notFound('reactor formula');
      return formula;
    },

    async updateFormula(principal, id, input) {
      authorize(principal, 'reactor:update');
      if (officialFormula(id) !== undefined)
        throw new VaultError('FORBIDDEN', 'Official formulas are read-only.');
      const checked = checkFormulaInput(input);
      const warnings = await codeWarnings(checked, principal.tenantId);
      const formula = await vault.transaction(async (trx) => {
        const row = await privateFormulaRow(trx, principal, id);
        // Each reactor of the formula runs the new code as its application: changing the code is
        // attaching every one of them.
        const runAs = await trx
          .selectFrom('reactors')
          .select('application_id')
          .distinct()
          .where('tenant_id', '=', principal.tenantId)
          .where('formula_id', '=', row.id)
          .where('application_id', 'is not', null)
          .execute();
        for (const { application_id } of runAs) {
          const application = await applicationFor(trx, principal, application_id);
          if (application !== null) assertMayAttach(principal, application);
        }
        const updated = await updateAuthenticatedRow(trx, vault, 'reactor_formulas', row, {
          ...formulaColumns(checked),
          modified_by: actorOf(principal).actor_id,
          modified_at: vault.clock.now().toISOString(),
        });
        await audit(trx, principal, FORMULA_ENTITY, row.id, 'update', REACTOR_MESSAGES.formulaUpdate);
        return withShownActors(principal, formulaOf(updated));
      });
      return { formula, warnings };
    },

    async deleteFormula(principal, id) {
      authorize(principal, 'reactor:delete');
      await vault.transaction(async (trx) => {
        const row = await privateFormulaRow(trx, principal, id);
        const user = await trx
          .selectFrom('reactors')
          .select('id')
          .where('tenant_id', '=', principal.tenantId)
          .where('formula_id', '=', row.id)
          .executeTakeFirst();
        if (user !== undefined) {
          throw new VaultError('CONFLICT', 'Reactors use this formula: delete them first.');
        }
        await trx.deleteFrom('reactor_formulas').where('id', '=', row.id).execute();
        await audit(trx, principal, FORMULA_ENTITY, row.id, 'delete', REACTOR_MESSAGES.formulaDelete);
      });
    },

    async create(principal, input) {
      authorize(principal, 'reactor:create');
      const formulaId = referenceId(input.formula, 'formula');
      if (formulaId === null) throw validationError({ 'formula.id': ['is required'] });
      return vault.transaction(async (trx) => {
        const formula = await findFormula(trx, principal, formulaId);
        if (formula === undefined) throw validationError({ 'formula.id': ['no such reactor formula'] });
        const { name, configuration, application } = await checkReactorBody(trx, principal, input, formula);
        const row: Omit<ReactorRow, 'row_mac'> = {
          id: randomUUID(),
          tenant_id: principal.tenantId,
          name,
          formula_id: formula.id,
          configuration: JSON.stringify(configuration),
          application_id: application?.id ?? null,
          created_by: actorOf(principal).actor_id,
          created_at: vault.clock.now().toISOString(),
          modified_by: null,
          modified_at: null,
        };
        await trx
          .insertInto('reactors')
          .values(
            withRowMac(vault, 'reactors', {
              ...row,
              configuration: await sealConfiguration(trx, row.tenant_id, row.id, row.configuration),
            }),
          )
          .execute();
        await audit(trx, principal, REACTOR_ENTITY, row.id, 'create', REACTOR_MESSAGES.create);
        return reactorOf(trx, principal, row);
      });
    },

    async list(principal, filter, page) {
      authorize(principal, 'reactor:read');
      const window = checkPage(page, MAX_REACTOR_PAGE_SIZE);
      const matches = nameMatcher(filter.name);
      const ids = filter.ids?.map((id) => id.toLowerCase());
      let query = vault.db.selectFrom('reactors').selectAll().where('tenant_id', '=', principal.tenantId);
      if (ids !== undefined) query = query.where('id', 'in', ids.length > 0 ? ids : ['']);
      const rows = verifiedRows(
        vault,
        'reactors',
        await query.orderBy('created_at').orderBy('id').execute(),
      ).filter((row) => matches?.(row.name) ?? true);
      const items: Reactor[] = [];
      for (const row of rows.slice(window.offset, window.offset + window.limit)) {
        items.push(await reactorOf(vault.db, principal, row));
      }
      return { total: rows.length, items };
    },

    async get(principal, id) {
      authorize(principal, 'reactor:read');
      return reactorOf(vault.db, principal, await reactorRow(vault.db, principal, id));
    },

    async update(principal, id, input) {
      authorize(principal, 'reactor:update');
      return vault.transaction(async (trx) => {
        const row = await reactorRow(trx, principal, id);
        const formula = await findFormula(trx, principal, row.formula_id);
        if (formula === undefined) throw corrupt('reactor formula reference');
        const { name, configuration, application } = await checkReactorBody(trx, principal, input, formula);
        const changes = {
          name,
          configuration: JSON.stringify(configuration),
          application_id: application?.id ?? null,
          modified_by: actorOf(principal).actor_id,
          modified_at: vault.clock.now().toISOString(),
        };
        await updateAuthenticatedRow(trx, vault, 'reactors', row, {
          ...changes,
          configuration: await sealConfiguration(trx, row.tenant_id, row.id, changes.configuration),
        });
        await audit(trx, principal, REACTOR_ENTITY, row.id, 'update', REACTOR_MESSAGES.update);
        return reactorOf(trx, principal, { ...row, ...changes });
      });
    },

    async delete(principal, id) {
      authorize(principal, 'reactor:delete');
      await vault.transaction(async (trx) => {
        const row = await reactorRow(trx, principal, id);
        await trx.deleteFrom('reactors').where('id', '=', row.id).execute();
        await audit(trx, principal, REACTOR_ENTITY, row.id, 'delete', REACTOR_MESSAGES.delete);
      });
    },

    async react(principal, id, args) {
      authorize(principal, 'token:use');
      const reactor = await reactorToInvoke(principal, id);
      let succeeded = false;
      try {
        const result = await run(principal, reactor, args);
        succeeded = true;
        return result;
      } finally {
        const message = succeeded ? REACTOR_MESSAGES.invoke : REACTOR_MESSAGES.invokeFailed;
        // Durable before the answer, group-committed with other reads instead of a fsync each.
        await readAuditOf(vault).record({
          entries: [
            {
              principal,
              event: {
                tenantId: principal.tenantId,
                entityType: REACTOR_ENTITY,
                entityId: reactor.id,
                operation: 'invoke',
                message,
              },
            },
          ],
        });
      }
    },

    close() {
      return sandbox.close();
    },
  };
}
