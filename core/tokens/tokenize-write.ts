/**
 * POST /tokenize's writes. A request's tokens are written in one of three ways, chosen here:
 * - in a group with other requests (one transaction for all) when the request runs in no caller's
 *   transaction and every token has a random id and needs no deduplication lookup;
 * - as one batch in a transaction of its own (or the caller's) when its tokens need no lookup but
 *   it could not join a group;
 * - one token at a time, like POST /tokens, when any token needs a lookup before its insert.
 */
import { authorize } from '../access/authorize.ts';
import type { Principal } from '../access/principal.ts';
import { runOutsideRequestBudget } from '../expressions/budget.ts';
import type { CreateTokenResult } from './contract.ts';
import { prepareBatch, writeBatches } from './batch-insert.ts';
import type { PreparedBatch } from './batch-insert.ts';
import { createOne } from './create.ts';
import type { TokenOperationDeps } from './operation-deps.ts';
import { underPrefix } from './token-input.ts';
import { MAX_TOKENIZE_TOKENS, planTokenize } from './tokenize.ts';
import type { PlannedToken } from './tokenize.ts';
import { WriteContext } from './write-context.ts';
import type { TenantFunctions } from './write-context.ts';
import { WriteGroups, runAlone } from './write-groups.ts';

/** A tokenize request waiting for its group. */
interface GroupMember {
  readonly principal: Principal;
  readonly tokens: readonly PlannedToken[];
}

export type TokenizeGroups = WriteGroups<GroupMember, CreateTokenResult[]>;

/**
 * Tokenize requests written as one group (write-groups.ts): each member whose tokens can be
 * written together is prepared under its own principal, then all are inserted together; a member
 * that needs the one-by-one path runs alone after the group.
 */
export function tokenizeGroups(deps: TokenOperationDeps): TokenizeGroups {
  const { vault, crypto } = deps;
  return new WriteGroups<GroupMember, CreateTokenResult[]>(
    (members, options) =>
      runOutsideRequestBudget(() =>
        vault.transaction(async (trx) => {
          const now = vault.clock.now();
          const tenants = new Map<string, TenantFunctions>();
          const batches: PreparedBatch[] = [];
          const outcomes: Array<PreparedBatch | null> = [];
          for (const member of members) {
            const ctx = new WriteContext(trx, member.principal, now, crypto, vault, tenants);
            const batch = await prepareBatch(vault, ctx, member.tokens);
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
}

/** One tokenize request, in the caller's transaction: its tokens together when they can be. */
async function tokenizeIn(
  deps: TokenOperationDeps,
  ctx: WriteContext,
  tokens: readonly PlannedToken[],
): Promise<CreateTokenResult[]> {
  await ctx.tenantSettings(); // NOT_FOUND for a tenant that does not exist (an operator's stale id)
  const batch = await prepareBatch(deps.vault, ctx, tokens);
  if (batch !== null) return (await writeBatches(ctx.trx, [batch]))[0]!;
  const results: CreateTokenResult[] = [];
  for (const token of tokens) {
    results.push(await underPrefix(token.path, () => createOne(deps, ctx, token.checked, token.derived)));
  }
  return results;
}

/** POST /tokenize. */
export async function tokenize(
  deps: TokenOperationDeps,
  groups: TokenizeGroups,
  principal: Principal,
  body: unknown,
): Promise<unknown> {
  const { vault, crypto } = deps;
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
    const results = await tokenizeIn(deps, ctx, plan.tokens);
    await ctx.finish(vault);
    return plan.assemble(results);
  });
}
