/**
 * POST /tokenize's writes. The route asks once (`tokenize`); the request's tokens are then written
 * by one of three paths, chosen here only. The rule: tokens that need no lookup before their
 * insert (a random id, no deduplication) are written together, and as widely as the vault allows.
 * - grouped: a request outside any caller's transaction whose tokens all need no lookup is
 *   written in one transaction with the requests that arrived meanwhile (write-groups.ts);
 * - batched: such tokens when the request cannot be grouped (it runs in a caller's transaction,
 *   or its group failed) are inserted together in the request's own transaction (or the caller's);
 * - one by one: when any token needs a lookup (a chosen id or alias, deduplication), each token
 *   is created as POST /tokens creates one, all in one transaction.
 * Which path runs never changes the response or the audit entries.
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
