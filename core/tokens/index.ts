/**
 * The tokens feature's surface for the server, the CLI and the desktop (with `contract.ts` for the
 * types); `eslint.config.js` keeps their code off the other files. Core's own modules that work on
 * token rows (detokenize, reactors, proxies, key rotation, the usage report) use the insides they
 * need. The service itself is `Services.tokens` (core/services.ts).
 */
export type {
  CreateTokenRequest,
  CreateTokenResult,
  TokenFilter,
  TokenSearchRequest,
  TokenService,
  TokenView,
} from './contract.ts';
export { MAX_TOKEN_PAGE_SIZE, TOKEN_MESSAGES, createTokenService } from './token-service.ts';
export { TokenSchema } from './token-schema.ts';
export { ASSOCIATION_MESSAGES, createTokenAssociationService } from './associations.ts';
export type { TokenAssociationService } from './associations.ts';
export { DEFAULT_SWEEP_INTERVAL_MS, startExpirySweeper } from './sweeper.ts';
export type { ExpirySweeperOptions } from './sweeper.ts';
export { MAX_TOKENIZE_DEPTH, MAX_TOKENIZE_TOKENS } from './tokenize.ts';
export { METADATA_KEY_MAX_LENGTH, METADATA_MAX_KEYS, METADATA_VALUE_MAX_LENGTH } from './metadata.ts';
export { recordActivity, activityMonth } from './activity.ts';
export {
  currentMonthlyActiveTokens,
  monthlyActiveTokenHistory,
  monthlyActiveTokens,
  tokenMetricsByType,
} from './usage.ts';
export type { TypeMetrics } from './usage.ts';
export { formatExpiry, parseExpiry } from './expiry.ts';
export { TOKEN_TYPES, TOKEN_TYPE_NAMES } from './token-types.ts';
export type { TokenType } from './token-types.ts';
export { CLASSIFICATION_MAX_LENGTH, IMPACT_LEVELS, RESTRICTION_POLICIES } from './privacy.ts';
export { MAX_QUERY_LENGTH } from './search-query.ts';
export { TOKEN_ID_MAX_LENGTH } from './token-id.ts';
export { MAX_FILTER_IDS, MAX_FILTER_METADATA, MAX_FILTER_TYPES } from './list-filter.ts';
