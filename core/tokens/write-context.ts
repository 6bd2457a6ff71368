/**
 * The per-transaction state of a token write (`WriteContext`): the tenant's settings and keyed
 * functions, fetched once, and the audit entries and activity marks it queues for its end.
 */
import type { Kysely } from 'kysely';
import type { Principal } from '../access/principal.ts';
import { appendAuditBatch } from '../audit/audit-log.ts';
import type { AuditItem } from '../audit/audit-log.ts';
import { tokenEntityType, type AuditOperation } from '../audit/entity-types.ts';
import type { RowKeys } from '../integrity/row-authenticator.ts';
import type { Database } from '../storage/schema.ts';
import { tenantSettings } from '../tenancy/tenant-store.ts';
import type { VaultHandle } from '../vault/types.ts';
import { activityMonth, insertActivity, recordActivity } from './activity.ts';
import type { Audited } from './token-audit.ts';
import type { Hasher, TokenCrypto } from './token-crypto.ts';

/** A tenant's settings and keyed functions, fetched once per transaction when first needed. */
export interface TenantFunctions {
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
export class WriteContext {
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

  /** Queues the audit entry of `token`, written by `finish`; `revealed` for a read. */
  audit(token: Audited, operation: AuditOperation, message: string, revealed?: boolean): void {
    this.audits.push({
      principal: this.principal,
      event: {
        tenantId: token.tenant_id,
        entityType: tokenEntityType(token.type),
        entityId: token.id,
        operation,
        message,
        ...(revealed === undefined ? {} : { revealed }),
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
