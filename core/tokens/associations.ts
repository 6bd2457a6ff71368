/**
 * Token associations: parent/child links between two tokens of one tenant. Any two tokens of any
 * types may be linked, in either direction (A→B and B→A are two links); a token is never its own
 * child. A link lives as long as both tokens: deleting or expiring either removes it.
 *
 * Permissions (each on the container of the token named, beside the coarse check):
 * - associate: `token:read` on parent and child; an existing link is a 409;
 * - dissociate: `token:delete` on parent and child; a missing link is a 404;
 * - create a child: `token:create` where the child goes and `token:read` on the parent, in one
 *   transaction (a missing parent leaves no token behind); a deduplicated child is linked as is;
 * - list children: `token:read` on the parent; the children are listed like `GET /tokens` (only
 *   those the caller may read, each through its transform, audited as reads).
 * Lookups go parent, child, link; a token outside every container the caller may read is a 404
 * like a missing one (a 403 would confirm that it exists), so a caller learns nothing of a token
 * it may not touch. Each change writes an
 * `update` audit entry on both tokens (fixed wording, no ids in messages).
 */
import type { Kysely } from 'kysely';
import { authorize } from '../access/authorize.ts';
import { actorOf } from '../access/principal.ts';
import type { Principal } from '../access/principal.ts';
import { appendAudit } from '../audit/audit-log.ts';
import { tokenEntityType } from '../audit/entity-types.ts';
import { VaultError, validationError } from '../errors/catalogue.ts';
import type { Page, PageRequest } from '../common-types.ts';
import type { Database } from '../storage/schema.ts';
import type { VaultHandle } from '../vault/types.ts';
import { transformOnExisting } from './access-scope.ts';
import type { CreateTokenRequest, CreateTokenResult, TokenFilter, TokenView } from './contract.ts';
import type { TokenServiceWithHooks } from './token-service.ts';
import { findToken, tokenNotFound } from './token-store.ts';
import type { TokenRow } from './token-store.ts';

export interface TokenAssociationService {
  /** POST /tokens/{parent_id}/children/{child_id} (204; 409 when already linked). */
  associate(principal: Principal, parentId: string, childId: string): Promise<void>;
  /** DELETE /tokens/{parent_id}/children/{child_id} (204; 404 when not linked). */
  dissociate(principal: Principal, parentId: string, childId: string): Promise<void>;
  /** POST /tokens/{parent_id}/children: creates a token (as POST /tokens) linked as a child. */
  createChild(
    principal: Principal,
    parentId: string,
    request: CreateTokenRequest,
  ): Promise<CreateTokenResult>;
  /** GET /tokens/{parent_id}/children: a page of children, filtered like GET /tokens. */
  children(
    principal: Principal,
    parentId: string,
    filter: Omit<TokenFilter, 'parent'>,
    page: PageRequest,
  ): Promise<Page<TokenView>>;
}

/** Fixed audit wording: never data, never ids. */
export const ASSOCIATION_MESSAGES = {
  childAdded: 'Child token associated',
  parentAdded: 'Token associated with a parent',
  childRemoved: 'Child token dissociated',
  parentRemoved: 'Token dissociated from a parent',
} as const;

type Permission = 'token:read' | 'token:delete';
type Audited = Pick<TokenRow, 'tenant_id' | 'id' | 'type'>;

export function createTokenAssociationService(
  vault: VaultHandle,
  tokens: TokenServiceWithHooks,
): TokenAssociationService {
  const audit = (trx: Kysely<Database>, principal: Principal, token: Audited, message: string) =>
    appendAudit(trx, vault, principal, {
      tenantId: token.tenant_id,
      entityType: tokenEntityType(token.type),
      entityId: token.id,
      operation: 'update',
      message,
    });

  /**
   * A live token of the caller's tenant that the caller holds `permission` on: a missing token and
   * one outside every container the caller may read are the same 404; 403 only for a token it may
   * read but not act on this way.
   */
  const tokenFor = async (
    trx: Kysely<Database>,
    principal: Principal,
    id: string,
    permission: Permission,
  ): Promise<TokenRow> => {
    const row = await findToken(trx, vault, principal.tenantId, id, vault.clock.now());
    if (!row) throw tokenNotFound();
    transformOnExisting(principal, permission, row.container);
    return row;
  };

  const linked = async (trx: Kysely<Database>, parent: TokenRow, child: TokenRow): Promise<boolean> => {
    const row = await trx
      .selectFrom('token_associations')
      .select('child_rowid')
      .where('parent_rowid', '=', parent.row_id)
      .where('child_rowid', '=', child.row_id)
      .executeTakeFirst();
    return row !== undefined;
  };

  const link = async (
    trx: Kysely<Database>,
    principal: Principal,
    parent: TokenRow,
    child: TokenRow,
  ): Promise<void> => {
    await trx
      .insertInto('token_associations')
      .values({
        tenant_id: parent.tenant_id,
        parent_rowid: parent.row_id,
        child_rowid: child.row_id,
        created_by: actorOf(principal).actor_id,
        created_at: vault.clock.now().toISOString(),
      })
      .execute();
    await audit(trx, principal, parent, ASSOCIATION_MESSAGES.childAdded);
    await audit(trx, principal, child, ASSOCIATION_MESSAGES.parentAdded);
  };

  const notOwnChild = (parentId: string, childId: string): void => {
    if (parentId === childId) throw validationError({ child_id: ['a token cannot be its own child'] });
  };

  return {
    async associate(principal, parentId, childId) {
      authorize(principal, 'token:read');
      notOwnChild(parentId, childId);
      await vault.transaction(async (trx) => {
        const parent = await tokenFor(trx, principal, parentId, 'token:read');
        const child = await tokenFor(trx, principal, childId, 'token:read');
        if (await linked(trx, parent, child)) {
          throw new VaultError('CONFLICT', 'The tokens are already associated.');
        }
        await link(trx, principal, parent, child);
      });
    },

    async dissociate(principal, parentId, childId) {
      authorize(principal, 'token:delete');
      await vault.transaction(async (trx) => {
        const parent = await tokenFor(trx, principal, parentId, 'token:delete');
        const child = await tokenFor(trx, principal, childId, 'token:delete');
        if (!(await linked(trx, parent, child))) {
          throw new VaultError('NOT_FOUND', 'The tokens are not associated.');
        }
        await trx
          .deleteFrom('token_associations')
          .where('parent_rowid', '=', parent.row_id)
          .where('child_rowid', '=', child.row_id)
          .execute();
        await audit(trx, principal, parent, ASSOCIATION_MESSAGES.childRemoved);
        await audit(trx, principal, child, ASSOCIATION_MESSAGES.parentRemoved);
      });
    },

    async createChild(principal, parentId, request) {
      authorize(principal, 'token:create');
      authorize(principal, 'token:read');
      return tokens.create(principal, request, async (trx, result) => {
        const parent = await tokenFor(trx, principal, parentId, 'token:read');
        if (result.token.id === parent.id) {
          throw validationError({
            data: ['deduplication found the parent itself: a token cannot be its own child'],
          });
        }
        const child = await findToken(trx, vault, principal.tenantId, result.token.id, vault.clock.now());
        if (!child) throw new Error('a token just created or found is missing');
        if (!(await linked(trx, parent, child))) await link(trx, principal, parent, child);
      });
    },

    async children(principal, parentId, filter, page) {
      authorize(principal, 'token:read');
      await tokenFor(vault.db, principal, parentId, 'token:read');
      return tokens.list(principal, { ...filter, parent: parentId }, page);
    },
  };
}
