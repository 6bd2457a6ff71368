/**
 * What every operation of the reactor service works with, made once per service
 * (`createReactorService`) and handed to each operation: the open vault, the services an
 * operation calls, the sealing of reactor configurations, and the reactors kept loaded for
 * invocations. Also the audit entity types and messages, and the errors the operations share.
 */
import type { Kysely } from 'kysely';
import type { Principal } from '../access/principal.ts';
import { appendAudit } from '../audit/audit-log.ts';
import { SealedText } from '../crypto/sealed-text.ts';
import { TenantKeys } from '../crypto/tenant-keys.ts';
import type { Detokenizer } from '../detokenize/index.ts';
import { VaultError } from '../errors/catalogue.ts';
import type { Sandbox } from '../sandbox/index.ts';
import type { Database } from '../storage/schema.ts';
import { TableCache } from '../backends/embedded/table-changes.ts';
import type { TokenService } from '../tokens/contract.ts';
import type { VaultHandle } from '../vault/types.ts';
import type { Reactor } from './contract.ts';

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

export interface ReactorContext {
  readonly vault: VaultHandle;
  readonly tokens: TokenService;
  readonly detokenizer: Detokenizer;
  readonly sandbox: Sandbox;
  /** A reactor's configuration may hold secrets (API keys of the services it calls): sealed at rest. */
  readonly sealed: SealedText;
  /**
   * Invocations take the reactor (formula, opened configuration, application) from memory on the
   * embedded vault, as long as none of REACTOR_TABLES was written since it was loaded
   * (core/backends/embedded/table-changes.ts); PostgreSQL (other servers write the same rows) loads it each
   * time, so this is null there.
   */
  readonly loaded: TableCache<Reactor> | null;
}

export function reactorContext(vault: VaultHandle, deps: ReactorServiceDeps): ReactorContext {
  return {
    vault,
    tokens: deps.tokens,
    detokenizer: deps.detokenizer,
    sandbox: deps.sandbox,
    sealed: new SealedText(deps.keys ?? new TenantKeys(vault)),
    loaded:
      vault.changes === null
        ? null
        : new TableCache<Reactor>(vault.changes, REACTOR_TABLES, MAX_CACHED_REACTORS),
  };
}

const CHANGE_MESSAGES = {
  [FORMULA_ENTITY]: {
    create: REACTOR_MESSAGES.formulaCreate,
    update: REACTOR_MESSAGES.formulaUpdate,
    delete: REACTOR_MESSAGES.formulaDelete,
  },
  [REACTOR_ENTITY]: {
    create: REACTOR_MESSAGES.create,
    update: REACTOR_MESSAGES.update,
    delete: REACTOR_MESSAGES.delete,
  },
} as const;

/** The audit entry of a change to a formula or reactor of the caller's tenant, in `trx`. */
export function auditChange(
  context: ReactorContext,
  trx: Kysely<Database>,
  principal: Principal,
  entityType: keyof typeof CHANGE_MESSAGES,
  entityId: string,
  operation: 'create' | 'update' | 'delete',
): Promise<void> {
  return appendAudit(trx, context.vault, principal, {
    tenantId: principal.tenantId,
    entityType,
    entityId,
    operation,
    message: CHANGE_MESSAGES[entityType][operation],
  });
}

export function corrupt(what: string): VaultError {
  return new VaultError('VAULT_CORRUPT', `A stored ${what} is malformed.`);
}

export function notFound(what: string): VaultError {
  return new VaultError('NOT_FOUND', `No such ${what}.`);
}

/** A stored JSON column; malformed text is a corrupt vault, not the caller's mistake. */
export function parseStoredJson<T>(text: string, what: string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw corrupt(what);
  }
}
