import type { Services } from '../../core/services-contract.ts';
import { MAX_TOKENIZE_TOKENS } from '../../core/tokens/index.ts';
import type { VaultHandle } from '../../core/vault/types.ts';

/** Transactions of this many tokens while a bench vault is built. */
const BATCH = 5_000;

/** The data of the `i`-th token of a bench vault (searchable through its blind index). */
export const scaleValueOf = (i: number): string => `scale-value-${i}`;

/**
 * Fills a bench vault with `tokens` tokens through the tokenize path, a request's worth of values
 * at a time (its batched inserts are several times faster than one create per token), in large
 * transactions, each token with a blind search index. Returns the id of the middle token.
 */
export async function tokenizeScaleTokens(
  vault: VaultHandle,
  services: Services,
  operator: { readonly kind: 'operator'; readonly tenantId: string },
  tokens: number,
): Promise<string> {
  let tokenId = '';
  for (let done = 0; done < tokens; done += BATCH) {
    const n = Math.min(BATCH, tokens - done);
    await vault.transaction(async () => {
      for (let from = done; from < done + n; from += MAX_TOKENIZE_TOKENS) {
        const indexes = Array.from(
          { length: Math.min(MAX_TOKENIZE_TOKENS, done + n - from) },
          (_, k) => from + k,
        );
        const created = (await services.tokens.tokenize(
          operator,
          indexes.map((i) => ({ type: 'token', data: scaleValueOf(i), search_indexes: ['{{ data }}'] })),
        )) as { id: string }[];
        const middle = indexes.indexOf(Math.floor(tokens / 2));
        if (middle >= 0) tokenId = created[middle]!.id;
      }
    });
  }
  return tokenId;
}
