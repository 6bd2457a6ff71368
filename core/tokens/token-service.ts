/**
 * `TokenService` (contract.ts) over one open vault: authorization per container, one audit entry
 * per token touched and monthly activity, all in the transaction that does the work. Token data
 * reaches storage only as a field envelope; fingerprints and blind indexes are keyed hashes with
 * the tenant's own keys (token-crypto.ts). Errors never carry token data.
 */
import { randomUUID } from 'node:crypto';
import type { Expression, ExpressionBuilder, Kysely, SqlBool } from 'kysely';
import { assertMaySearchActor } from '../access/actor-ids.ts';
import { authorize, transformFor } from '../access/authorize.ts';
import { actorOf } from '../access/principal.ts';
import type { Principal } from '../access/principal.ts';
import type { Transform } from '../access/rules.ts';
import { appendAudit, appendAuditBatch } from '../audit/audit-log.ts';
import type { AuditItem } from '../audit/audit-log.ts';
import { tokenEntityType, type AuditOperation } from '../audit/entity-types.ts';
import type { TenantKeys } from '../crypto/tenant-keys.ts';
import { VaultError, validationError } from '../errors/catalogue.ts';
import { ALIAS_ATTEMPTS } from '../expressions/index.ts';
import type { Page } from '../common-types.ts';
import { runCompiled } from '../storage/compiled-queries.ts';
import type { Database } from '../storage/schema.ts';
import { checkPage } from '../validation/fields.ts';
import type { VaultHandle } from '../vault/types.ts';
import { activityMonth, insertActivity, recordActivity } from './activity.ts';
import {
  containerScope,
  readTransformOn,
  requireReveal,
  scopeCondition,
  searchRevealsEverywhere,
  stricterTransform,
  transformOnExisting,
} from './access-scope.ts';
import type { ContainerScope } from './access-scope.ts';
import type { CreateTokenRequest, CreateTokenResult, TokenService, TokenView } from './contract.ts';
import { deduplicationEnabled, duplicateView } from './dedup.ts';
import type { DuplicateOf } from './dedup.ts';
import { isExpired } from './expiry.ts';
import { fingerprinted } from './fingerprinting.ts';
import { checkFilter, filterCondition } from './list-filter.ts';
import { requiresDataTerm } from './search-sql.ts';
import { searchStatements } from './search-statements.ts';
import { actorTerms, countDataTerms, parseSearchQuery } from './search-query.ts';
import { TokenCrypto } from './token-crypto.ts';
import type { Hasher } from './token-crypto.ts';
import { ID_CONTAINS_DATA, idDataCheck, resolveTokenId } from './token-id.ts';
import { checkCreateRequest, deriveValues, underPrefix, underPrefixSync } from './token-input.ts';
import type { CheckedCreate, Derived, IdSpec, TokenSpec } from './token-input.ts';
import {
  deleteTokenRow,
  findDuplicate,
  findToken,
  findTokenSoon,
  findTokenRow,
  insertSearchDigests,
  insertTokenRow,
  insertTokenRows,
  notExpired,
  replaceSearchDigests,
  tokenNotFound,
  updateTokenRow,
} from './token-store.ts';
import type { TokenRow } from './token-store.ts';
import { tenantSettings } from '../tenancy/tenant-store.ts';
import { verifiedRows, withRowMac } from '../integrity/row-authenticator.ts';
import type { RowKeys } from '../integrity/row-authenticator.ts';
import { readAuditOf } from './read-audit.ts';
import { MAX_TOKENIZE_TOKENS, planTokenize } from './tokenize.ts';
import type { PlannedToken } from './tokenize.ts';
import { checkUpdate } from './token-update.ts';
import { needsData, shownData, shownOf, viewOf } from './token-view.ts';
import type { Shown } from './token-view.ts';
import { WriteGroups, runAlone } from './write-groups.ts';
import { runOutsideRequestBudget } from '../expressions/budget.ts';

/** Page size cap of list and search. */
export const MAX_TOKEN_PAGE_SIZE = 100;
/** Rows removed per sweeper transaction. */
export const SWEEP_BATCH = 500;

/** Fixed audit wording: never data, never ids or metadata values. */
export const TOKEN_MESSAGES = {
  create: 'Token created',
  read: 'Token read',
  duplicate: 'Token returned as a duplicate',
  update: 'Token updated',
  delete: 'Token deleted',
  expired: 'Token expired',
} as const;

export interface TokenServiceDeps {
  /** The services instance's one TenantKeys (its cache of unwrapped tenant keys). */
  readonly keys: TenantKeys;
}

type Audited = Pick<TokenRow, 'tenant_id' | 'id' | 'type'>;
type Condition = (eb: ExpressionBuilder<Database, 'tokens'>) => Expression<SqlBool>;

/** A tenant's settings and keyed functions, fetched once per transaction when first needed. */
interface TenantFunctions {
  settings?: Record<string, string>;
  fingerprintFn?: (type: string, input: string) => string;
  searchFn?: Hasher;
  sealFn?: (tokenId: string, data: unknown) => string;
}

/**
 * Per-transaction state of a write: the tenant's settings and hash functions, fetched once, and
 * the audit entries and activity marks of its tokens, written together by `finish` (one chain-head
 * read and multi-row inserts however many tokens the request holds).
 */
class WriteContext {
  private readonly audits: AuditItem[] = [];
  private readonly created: string[] = [];
  private readonly touched: string[] = [];
  private readonly keyed: TenantFunctions;

  /** `shared`: the tenant functions of other contexts of the same transaction (a tokenize group). */
  constructor(
    readonly trx: Kysely<Database>,
    readonly principal: Principal,
    readonly now: Date,
    private readonly crypto: TokenCrypto,
    readonly keys: RowKeys,
    shared?: Map<string, TenantFunctions>,
  ) {
    let keyed = shared?.get(principal.tenantId);
    if (!keyed) {
      keyed = {};
      shared?.set(principal.tenantId, keyed);
    }
    this.keyed = keyed;
  }

  get tenantId(): string {
    return this.principal.tenantId;
  }

  async tenantSettings(): Promise<Record<string, string>> {
    this.keyed.settings ??= await tenantSettings(this.trx, this.keys, this.tenantId);
    return this.keyed.settings;
  }

  async fingerprint(type: string, input: string | null): Promise<string | null> {
    if (input === null) return null;
    return (await this.fingerprinter())(type, input);
  }

  async searchDigests(values: readonly string[]): Promise<Uint8Array[]> {
    if (values.length === 0) return [];
    const hash = await this.searchHasher();
    return values.map((value) => hash(value));
  }

  async seal(tokenId: string, data: unknown): Promise<string> {
    return (await this.sealer())(tokenId, data);
  }

  /** The tenant's fingerprint function (its key is created on first need, so ask only then). */
  async fingerprinter(): Promise<(type: string, input: string) => string> {
    this.keyed.fingerprintFn ??= await this.crypto.fingerprinter(this.trx, this.tenantId);
    return this.keyed.fingerprintFn;
  }

  /** The tenant's blind-index function (its key is created on first need, so ask only then). */
  async searchHasher(): Promise<Hasher> {
    this.keyed.searchFn ??= await this.crypto.searchHasher(this.trx, this.tenantId);
    return this.keyed.searchFn;
  }

  async sealer(): Promise<(tokenId: string, data: unknown) => string> {
    this.keyed.sealFn ??= await this.crypto.sealer(this.trx, this.tenantId);
    return this.keyed.sealFn;
  }

  /** Queues the audit entry of `token`, written by `finish`. */
  audit(token: Audited, operation: AuditOperation, message: string): void {
    this.audits.push({
      principal: this.principal,
      event: {
        tenantId: token.tenant_id,
        entityType: tokenEntityType(token.type),
        entityId: token.id,
        operation,
        message,
      },
    });
  }

  /** Marks a token monthly active: `created` ones cannot have a mark yet. */
  active(tokenId: string, created: boolean): void {
    (created ? this.created : this.touched).push(tokenId);
  }

  /** Writes what was queued; call it last in the transaction. */
  async finish(vault: Pick<VaultHandle, 'keyedHash' | 'clock'>): Promise<void> {
    await WriteContext.finishAll(vault, [this]);
  }

  /**
   * Writes what several contexts of one transaction queued (a group of tokenize requests): their
   * audit entries in context order with one chain-head read per tenant, their activity marks with
   * one insert per tenant.
   */
  static async finishAll(
    vault: Pick<VaultHandle, 'keyedHash' | 'clock'>,
    contexts: readonly WriteContext[],
  ): Promise<void> {
    const [first] = contexts;
    if (!first) return;
    await appendAuditBatch(
      first.trx,
      vault,
      contexts.flatMap((c) => c.audits),
    );
    const created = new Map<string, string[]>();
    for (const c of contexts) {
      if (c.created.length > 0) created.set(c.tenantId, [...(created.get(c.tenantId) ?? []), ...c.created]);
    }
    for (const [tenantId, ids] of created) {
      await insertActivity(first.trx, tenantId, activityMonth(first.now), ids);
    }
    for (const c of contexts) {
      if (c.touched.length > 0) await recordActivity(c.trx, c.tenantId, c.touched, c.now);
    }
  }
}

/**
 * Work that belongs to a token's creation: it runs in the creating transaction, after the token is
 * written (or found as a duplicate), so a failure undoes the creation too (child tokens).
 */
export type AfterCreate = (trx: Kysely<Database>, result: CreateTokenResult) => Promise<void>;

/** The service as other token features in core use it: creation may carry follow-up work. */
export interface TokenServiceWithHooks extends TokenService {
  create(principal: Principal, request: CreateTokenRequest, after?: AfterCreate): Promise<CreateTokenResult>;
}

/** One request's tokens, prepared for a multi-row insert (see `prepareBatch`). */
interface PreparedBatch {
  readonly ctx: WriteContext;
  readonly rows: ReadonlyArray<Omit<TokenRow, 'row_id'>>;
  readonly shown: readonly Shown[];
  readonly digests: ReadonlyArray<readonly Uint8Array[]>;
}

/** A tokenize request waiting for its group. */
interface GroupMember {
  readonly principal: Principal;
  readonly tokens: readonly PlannedToken[];
}

/**
 * What the response of a new token shows of its data. The mask is the value `deriveValues`
 * evaluated over the same data before the transaction (under the stored-mask budget a read gets):
 * evaluating it again here would cost a render per token for the same result.
 */
function createdData(transform: Transform, token: PlannedToken): Shown {
  if (transform === 'redact') return undefined;
  if (transform === 'reveal') return { value: token.checked.data };
  return token.checked.mask === null ? undefined : { value: token.derived.masked };
}

export function createTokenService(vault: VaultHandle, deps: TokenServiceDeps): TokenServiceWithHooks {
  const crypto = new TokenCrypto(deps.keys);
  const reads = readAuditOf(vault);

  const readEvent = (token: Audited, message: string) => ({
    tenantId: token.tenant_id,
    entityType: tokenEntityType(token.type),
    entityId: token.id,
    operation: 'read' as const,
    message,
  });

  const audit = (
    trx: Kysely<Database>,
    principal: Principal | null,
    token: Audited,
    operation: AuditOperation,
    message: string,
  ): Promise<void> =>
    appendAudit(trx, vault, principal, {
      tenantId: token.tenant_id,
      entityType: tokenEntityType(token.type),
      entityId: token.id,
      operation,
      message,
    });

  const opener = (db: Kysely<Database>, row: TokenRow) => () =>
    crypto.open(db, row.tenant_id, row.id, row.data);

  /** Physically removes an expired token, with its audit record (no actor: the vault did it). */
  const expire = async (trx: Kysely<Database>, row: TokenRow): Promise<void> => {
    await deleteTokenRow(trx, row);
    await audit(trx, null, row, 'delete', TOKEN_MESSAGES.expired);
  };

  /** Whether `id` is held by a live token; an expired holder is swept on the spot. */
  const idTaken = async (ctx: WriteContext, id: string): Promise<boolean> => {
    const row = await findTokenRow(ctx.trx, ctx.tenantId, id);
    if (!row) return false;
    if (!isExpired(row.expires_at, ctx.now)) return true;
    await expire(ctx.trx, row);
    return false;
  };

  const newTokenId = async (ctx: WriteContext, spec: IdSpec, data: unknown): Promise<string> => {
    switch (spec.kind) {
      case 'uuid':
        return randomUUID();
      case 'literal':
        if (await idTaken(ctx, spec.id)) {
          throw new VaultError('CONFLICT', 'A token with this id already exists in the tenant.');
        }
        return spec.id;
      case 'alias': {
        // evaluateAlias wants a synchronous check; the store is asynchronous, so retry here. A
        // candidate carrying the data is drawn again (a random part may have repeated it by
        // chance); an expression whose every draw carries it copies the data itself: 400.
        let carriedData = 0;
        const containsData = idDataCheck(data);
        for (let attempt = 0; attempt < ALIAS_ATTEMPTS; attempt += 1) {
          const candidate = resolveTokenId(spec.expression, data, () => false);
          if (containsData(candidate)) carriedData += 1;
          else if (!(await idTaken(ctx, candidate))) return candidate;
        }
        if (carriedData === ALIAS_ATTEMPTS) {
          throw validationError({ id: [`the alias expression produced an id that ${ID_CONTAINS_DATA}`] });
        }
        return randomUUID();
      }
    }
  };

  /** The duplicate of a would-be token, returned instead (audited as a read), or null. */
  const returnDuplicate = async (
    ctx: WriteContext,
    type: string,
    fingerprint: string | null,
    flag: boolean | undefined,
    of: DuplicateOf,
    excludeRowId?: number,
  ): Promise<TokenView | null> => {
    if (!deduplicationEnabled(ctx.principal, await ctx.tenantSettings(), flag)) return null;
    if (fingerprint === null) return null;
    // Two writers with the same fingerprint must not both miss each other's token.
    await vault.lockFor(`dedup:${ctx.tenantId}:${type}:${fingerprint}`);
    const existing = await findDuplicate(
      ctx.trx,
      vault,
      ctx.tenantId,
      type,
      fingerprint,
      ctx.now,
      excludeRowId,
    );
    if (!existing) return null;
    const view = await duplicateView(ctx.principal, existing, opener(ctx.trx, existing), of);
    ctx.audit(existing, 'read', TOKEN_MESSAGES.duplicate);
    ctx.active(existing.id, false);
    return view;
  };

  /** Stored columns of a spec (everything but ids, creation and data). */
  const specColumns = (spec: TokenSpec, fingerprint: string | null) => ({
    mask: spec.mask === null ? null : JSON.stringify(spec.mask),
    fingerprint,
    fingerprint_expression: spec.fingerprintExpression,
    container: spec.container,
    metadata: JSON.stringify(spec.metadata),
    search_indexes: JSON.stringify(spec.searchIndexes),
    expires_at: spec.expiry === null ? null : spec.expiry.at.toISOString(),
    expires_offset: spec.expiry === null ? null : spec.expiry.offsetMinutes,
  });

  /** One token of create or tokenize, inside the caller's transaction. */
  const createOne = async (
    ctx: WriteContext,
    checked: CheckedCreate,
    derived: Derived,
  ): Promise<CreateTokenResult> => {
    const type = checked.definition.type;
    const transform = transformFor(ctx.principal, 'token:create', checked.container);
    const wanted = fingerprinted(await ctx.tenantSettings(), checked);
    const fingerprint = await ctx.fingerprint(type, wanted ? derived.fingerprintInput : null);
    const duplicate = await returnDuplicate(ctx, type, fingerprint, checked.deduplicate, 'create');
    if (duplicate) return { token: duplicate, created: false };

    const id = await newTokenId(ctx, checked.id, checked.data);
    const at = ctx.now.toISOString();
    const row = await insertTokenRow(
      ctx.trx,
      withRowMac(vault, 'tokens', {
        tenant_id: ctx.tenantId,
        id,
        type,
        data: await ctx.seal(id, checked.data),
        ...specColumns(checked, fingerprint),
        created_by: actorOf(ctx.principal).actor_id,
        created_at: at,
        modified_by: null,
        modified_at: null,
      }),
    );
    await replaceSearchDigests(
      ctx.trx,
      ctx.tenantId,
      row.row_id,
      await ctx.searchDigests(derived.searchValues),
      false,
    );
    ctx.audit(row, 'create', TOKEN_MESSAGES.create);
    ctx.active(id, true);
    const view = viewOf(row, await shownData(transform, row, async () => checked.data), ctx.principal);
    return { token: view, created: true };
  };

  /**
   * The rows of one request's tokens, ready to insert together: only for tokens that need no lookup
   * before their insert (random ids, no deduplication); null when any does, and nothing was done.
   * Sealing, fingerprints and blind indexes are computed here; nothing is written (but a missing
   * tenant key, created on first need).
   */
  const prepareBatch = async (
    ctx: WriteContext,
    tokens: readonly PlannedToken[],
  ): Promise<PreparedBatch | null> => {
    const settings = await ctx.tenantSettings();
    const simple = (t: PlannedToken): boolean => {
      if (t.checked.id.kind !== 'uuid') return false;
      try {
        return !deduplicationEnabled(ctx.principal, settings, t.checked.deduplicate);
      } catch {
        return false; // the one-by-one path raises the refusal
      }
    };
    if (!tokens.every(simple)) return null;
    const at = ctx.now.toISOString();
    const createdBy = actorOf(ctx.principal).actor_id;
    const fingerprintInput = (t: PlannedToken): string | null =>
      fingerprinted(settings, t.checked) ? t.derived.fingerprintInput : null;
    // The keyed functions are fetched once, up front and only when some token needs them (a
    // missing key is created on first need); the per-token work below is then synchronous, which
    // saves several promises per token.
    const fingerprint = tokens.some((t) => fingerprintInput(t) !== null) ? await ctx.fingerprinter() : null;
    const searchHash = tokens.some((t) => t.derived.searchValues.length > 0)
      ? await ctx.searchHasher()
      : null;
    const seal = await ctx.sealer();
    const rows: Array<Omit<TokenRow, 'row_id'>> = [];
    const shown: Shown[] = [];
    const digests: Uint8Array[][] = [];
    for (const token of tokens) {
      underPrefixSync(token.path, () => {
        const { checked, derived } = token;
        const transform = transformFor(ctx.principal, 'token:create', checked.container);
        const type = checked.definition.type;
        const input = fingerprintInput(token);
        const id = randomUUID();
        rows.push(
          withRowMac(vault, 'tokens', {
            tenant_id: ctx.tenantId,
            id,
            type,
            data: seal(id, checked.data),
            ...specColumns(checked, input === null || fingerprint === null ? null : fingerprint(type, input)),
            created_by: createdBy,
            created_at: at,
            modified_by: null,
            modified_at: null,
          }),
        );
        shown.push(createdData(transform, token));
        digests.push(searchHash === null ? [] : derived.searchValues.map((value) => searchHash(value)));
      });
    }
    return { ctx, rows, shown, digests };
  };

  /**
   * Writes prepared batches of one transaction together: one multi-row insert of every row, one of
   * their blind indexes, and each token's audit entry and activity mark queued on its context.
   */
  const writeBatches = async (
    trx: Kysely<Database>,
    batches: readonly PreparedBatch[],
  ): Promise<CreateTokenResult[][]> => {
    const rowIds = await insertTokenRows(
      trx,
      batches.flatMap((b) => b.rows),
    );
    let next = 0;
    const digests: Array<{ tenantId: string; rowId: number; digests: readonly Uint8Array[] }> = [];
    const results = batches.map((batch) =>
      batch.rows.map((fields, i): CreateTokenResult => {
        const row: TokenRow = { row_id: rowIds[next++]!, ...fields };
        digests.push({ tenantId: row.tenant_id, rowId: row.row_id, digests: batch.digests[i]! });
        batch.ctx.audit(row, 'create', TOKEN_MESSAGES.create);
        batch.ctx.active(row.id, true);
        return { token: viewOf(row, batch.shown[i], batch.ctx.principal), created: true };
      }),
    );
    await insertSearchDigests(trx, digests);
    return results;
  };

  /** One tokenize request, in the caller's transaction: its tokens together when they can be. */
  const tokenizeIn = async (
    ctx: WriteContext,
    tokens: readonly PlannedToken[],
  ): Promise<CreateTokenResult[]> => {
    await ctx.tenantSettings(); // NOT_FOUND for a tenant that does not exist (an operator's stale id)
    const batch = await prepareBatch(ctx, tokens);
    if (batch !== null) return (await writeBatches(ctx.trx, [batch]))[0]!;
    const results: CreateTokenResult[] = [];
    for (const token of tokens) {
      results.push(await underPrefix(token.path, () => createOne(ctx, token.checked, token.derived)));
    }
    return results;
  };

  /**
   * Tokenize requests written as one group (write-groups.ts): each member whose tokens can be
   * written together is prepared under its own principal, then all are inserted together; a member
   * that needs the one-by-one path runs alone after the group.
   */
  const groups = new WriteGroups<GroupMember, CreateTokenResult[]>(
    (members, options) =>
      runOutsideRequestBudget(() =>
        vault.transaction(async (trx) => {
          const now = vault.clock.now();
          const tenants = new Map<string, TenantFunctions>();
          const batches: PreparedBatch[] = [];
          const outcomes: Array<PreparedBatch | null> = [];
          for (const member of members) {
            const ctx = new WriteContext(trx, member.principal, now, crypto, vault, tenants);
            const batch = await prepareBatch(ctx, member.tokens);
            outcomes.push(batch);
            if (batch !== null) batches.push(batch);
          }
          if (batches.length === 0) return members.map(() => runAlone());
          const written = await writeBatches(trx, batches);
          await WriteContext.finishAll(
            vault,
            batches.map((b) => b.ctx),
          );
          let next = 0;
          return outcomes.map((batch) =>
            batch === null ? runAlone() : { kind: 'done', value: written[next++]! },
          );
        }, options),
      ),
    MAX_TOKENIZE_TOKENS,
  );

  /** The page's rows as the caller sees them, each through `permission`'s transform. */
  const viewsOf = async (
    trx: Kysely<Database>,
    principal: Principal,
    permission: 'token:read' | 'token:search',
    rows: readonly TokenRow[],
  ): Promise<TokenView[]> => {
    const items: TokenView[] = [];
    for (const row of rows) {
      const transform = transformFor(principal, permission, row);
      items.push(viewOf(row, await shownData(transform, row, opener(trx, row)), principal));
    }
    return items;
  };

  /** The page's audit entries and activity marks, in the next read-audit batch. */
  const auditPage = (principal: Principal, rows: readonly TokenRow[]): Promise<void> =>
    reads.record({
      entries: rows.map((row) => ({ principal, event: readEvent(row, TOKEN_MESSAGES.read) })),
      activeTokens: { tenantId: principal.tenantId, tokenIds: rows.map((r) => r.id) },
    });

  /** A page of live tokens in the caller's scope, each through `permission`'s transform. */
  const listPage = async (
    principal: Principal,
    permission: 'token:read' | 'token:search',
    scope: ContainerScope,
    page: { offset: number; limit: number },
    condition: Condition,
  ): Promise<Page<TokenView>> => {
    // One read keeps count and page consistent; the page's audit entries join the next
    // read-audit batch after it.
    const { result, rows } = await vault.read(async (trx) => {
      const now = vault.clock.now();
      const filtered = trx
        .selectFrom('tokens')
        .where('tokens.tenant_id', '=', principal.tenantId)
        .where(condition)
        .where((eb) => notExpired(eb, now))
        .where((eb) => scopeCondition(eb, scope));
      const count = await filtered.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      const rows = verifiedRows(
        vault,
        'tokens',
        await filtered
          .selectAll('tokens')
          .orderBy('tokens.row_id', 'desc')
          .limit(page.limit)
          .offset(page.offset)
          .execute(),
      );
      const items = await viewsOf(trx, principal, permission, rows);
      return { result: { total: Number(count.n), items }, rows };
    });
    await auditPage(principal, rows);
    return result;
  };

  return {
    async create(principal, request, after?: AfterCreate) {
      authorize(principal, 'token:create');
      const now = vault.clock.now();
      const checked = checkCreateRequest(request, now);
      const derived = deriveValues(checked);
      return vault.transaction(async (trx) => {
        const ctx = new WriteContext(trx, principal, vault.clock.now(), crypto, vault);
        await ctx.tenantSettings(); // NOT_FOUND for a tenant that does not exist (an operator's stale id)
        const result = await createOne(ctx, checked, derived);
        await ctx.finish(vault);
        if (after) await after(trx, result);
        return result;
      });
    },

    async tokenize(principal, body) {
      authorize(principal, 'token:create');
      const plan = await planTokenize(body, vault.clock.now());
      // Inside a caller's transaction the request joins it; only a request of its own can wait for
      // a group, which needs the vault's one writer.
      if (!vault.inTransaction() && plan.tokens.every((t) => t.checked.id.kind === 'uuid')) {
        const outcome = await groups.submit({ principal, tokens: plan.tokens }, plan.tokens.length);
        if (outcome.kind === 'done') return plan.assemble(outcome.value);
      }
      return vault.transaction(async (trx) => {
        const ctx = new WriteContext(trx, principal, vault.clock.now(), crypto, vault);
        const results = await tokenizeIn(ctx, plan.tokens);
        await ctx.finish(vault);
        return plan.assemble(results);
      });
    },

    async get(principal, id) {
      authorize(principal, 'token:read');
      // No write transaction: one locked SELECT, then the entry joins the next read-audit batch.
      // The SELECT and the opening run without awaiting where they can (the lock free, the data
      // key at hand): which path runs depends on the lock and the key cache, not on the token.
      const now = vault.clock.now();
      const found = findTokenSoon(vault.db, vault, principal.tenantId, id, now);
      const row = found instanceof Promise ? await found : found;
      if (!row) throw tokenNotFound();
      const transform = transformOnExisting(principal, 'token:read', row);
      let shown: Shown;
      if (needsData(transform, row)) {
        const data = crypto.openSoon(vault.db, row.tenant_id, row.id, row.data);
        shown = shownOf(transform, row, data instanceof Promise ? await data : data);
      }
      const view = viewOf(row, shown, principal);
      await reads.record({
        entries: [{ principal, event: readEvent(row, TOKEN_MESSAGES.read) }],
        activeTokens: { tenantId: row.tenant_id, tokenIds: [row.id] },
      });
      return view;
    },

    async list(principal, filter, page) {
      const scope = containerScope(principal, 'token:read');
      const window = checkPage(page, MAX_TOKEN_PAGE_SIZE);
      checkFilter(filter);
      return listPage(principal, 'token:read', scope, window, (eb) => filterCondition(eb, filter));
    },

    async search(principal, request) {
      const scope = containerScope(principal, 'token:search');
      const window = checkPage({ page: request.page, size: request.size }, MAX_TOKEN_PAGE_SIZE);
      if (typeof request.query !== 'string') throw validationError({ query: ['is required'] });
      const tree = parseSearchQuery(request.query);
      for (const term of actorTerms(tree)) assertMaySearchActor(principal, term.field, term.value);
      const dataTerms = countDataTerms(tree);
      if (dataTerms > 0 && !searchRevealsEverywhere(principal)) {
        throw new VaultError(
          'FORBIDDEN',
          "data: terms need 'token:search' with the reveal transform on every container the caller may search.",
        );
      }
      // One read keeps count and page consistent; a transaction when a `data:` term may create the
      // tenant's search key. The page's audit entries join the next read-audit batch after it.
      const searchIn = async (trx: Kysely<Database>) => {
        const digest: Hasher =
          dataTerms > 0 ? await crypto.searchHasher(trx, principal.tenantId) : () => new Uint8Array(0);
        const run = searchStatements(vault.db, tree, {
          tenantId: principal.tenantId,
          scope,
          driver: requiresDataTerm(tree) ? 'search-index' : 'tenant',
          now: vault.clock.now(),
          limit: window.limit,
          offset: window.offset,
          digest,
        });
        const count = await runCompiled(trx, run.count, run.countParameters);
        const rows = verifiedRows(
          vault,
          'tokens',
          (await runCompiled(trx, run.page, run.pageParameters)).rows,
        );
        const items = await viewsOf(trx, principal, 'token:search', rows);
        return { result: { total: Number(count.rows[0]!.n), items }, rows };
      };
      const { result, rows } = dataTerms > 0 ? await vault.transaction(searchIn) : await vault.read(searchIn);
      await auditPage(principal, rows);
      return result;
    },

    async update(principal, id, patch) {
      authorize(principal, 'token:update');
      return vault.transaction(async (trx) => {
        const ctx = new WriteContext(trx, principal, vault.clock.now(), crypto, vault);
        const row = await findToken(trx, vault, principal.tenantId, id, ctx.now);
        if (!row) throw tokenNotFound();
        transformOnExisting(principal, 'token:update', row);
        const current = await crypto.open(trx, row.tenant_id, row.id, row.data);
        const { spec, dataChanged, deduplicate, needsReveal } = checkUpdate(row, current, patch, ctx.now);
        // Before any caller-chosen expression is evaluated over the data: its value, its errors and
        // its fingerprint would all tell a caller without plaintext access something about the data.
        requireReveal(principal, needsReveal, [row.container, spec.container]);
        // Moving needs token:update on both containers. The response shows the
        // token where it now is, never more than the caller's read transform there allows.
        const moved = { id: row.id, container: spec.container };
        const updateTransform = transformFor(principal, 'token:update', moved);
        const transform = stricterTransform(updateTransform, readTransformOn(principal, moved) ?? 'redact');
        const derived = deriveValues(spec);
        const wanted = fingerprinted(await ctx.tenantSettings(), spec);
        const fingerprint = await ctx.fingerprint(row.type, wanted ? derived.fingerprintInput : null);
        const duplicate = await returnDuplicate(
          ctx,
          row.type,
          fingerprint,
          deduplicate,
          'update',
          row.row_id,
        );
        if (duplicate) {
          await ctx.finish(vault);
          return duplicate;
        }

        const updated = await updateTokenRow(trx, vault, row, {
          ...(dataChanged ? { data: await crypto.seal(trx, row.tenant_id, row.id, spec.data) } : {}),
          ...specColumns(spec, fingerprint),
          modified_by: actorOf(principal).actor_id,
          modified_at: ctx.now.toISOString(),
        });
        await replaceSearchDigests(
          trx,
          row.tenant_id,
          row.row_id,
          await ctx.searchDigests(derived.searchValues),
          true,
        );
        await audit(trx, principal, updated, 'update', TOKEN_MESSAGES.update);
        return viewOf(updated, await shownData(transform, updated, async () => spec.data), principal);
      });
    },

    async delete(principal, id) {
      authorize(principal, 'token:delete');
      await vault.transaction(async (trx) => {
        const row = await findToken(trx, vault, principal.tenantId, id, vault.clock.now());
        if (!row) throw tokenNotFound();
        transformOnExisting(principal, 'token:delete', row);
        await deleteTokenRow(trx, row);
        await audit(trx, principal, row, 'delete', TOKEN_MESSAGES.delete);
      });
    },

    async sweepExpired() {
      let total = 0;
      for (;;) {
        const removed = await vault.transaction(async (trx) => {
          // Servers sharing a database sweep one at a time: the next one finds nothing left to
          // expire, instead of deleting the same rows and auditing each expiry twice.
          await vault.lockFor('expiry-sweep');
          const rows = await trx
            .selectFrom('tokens')
            .selectAll()
            .where('expires_at', 'is not', null)
            .where('expires_at', '<=', vault.clock.now().toISOString())
            .orderBy('expires_at')
            .limit(SWEEP_BATCH)
            .execute();
          for (const row of rows) await expire(trx, row);
          return rows.length;
        });
        total += removed;
        if (removed < SWEEP_BATCH) return total;
      }
    },
  };
}
