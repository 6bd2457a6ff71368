/**
 * The tokens feature as the HTTP routes and the CLI call it (service interface: Token, Tokenize,
 * Tokens). `Services.tokens` implements it.
 * Every method takes the acting Principal, checks `token:*` permissions per container with
 * `transformFor` (core/access), writes one audit entry per token touched in the same transaction
 * (entity_type = the token's type), and never puts token data in errors, logs or audit messages.
 */
import type { Principal } from '../access/principal.ts';
import type { Page, PageRequest } from '../common-types.ts';
import type { Static } from 'typebox';
import type { TokenSchema } from './token-schema.ts';

/**
 * A token as the API returns it: the static type of `TokenSchema` (token-schema.ts), the one
 * schema of the token. `data` is absent when the transform redacts it or no mask exists.
 */
export type TokenView = Readonly<Static<typeof TokenSchema>>;

/** Body of POST /tokens, and a token definition inside POST /tokenize. */
export interface CreateTokenRequest {
  /** Caller-supplied id (3–400 chars, no forbidden characters) or an alias expression; else a UUID. */
  readonly id?: string;
  /** Default `token`. */
  readonly type?: string;
  readonly data: unknown;
  readonly mask?: unknown;
  readonly fingerprint_expression?: string;
  readonly containers?: readonly string[];
  /** The older way to choose a container (privacy.ts); must agree with `containers` when both are given. */
  readonly privacy?: PrivacyInput;
  readonly metadata?: Record<string, string>;
  readonly search_indexes?: readonly string[];
  readonly deduplicate_token?: boolean;
  /** Date-time with offset, date-time without offset (= UTC), or short `M/D/YYYY` (= midnight UTC). */
  readonly expires_at?: string;
}

/** `privacy` as a create request gives it; null members count as not given. */
export interface PrivacyInput {
  readonly classification?: string | null;
  readonly impact_level?: string | null;
  readonly restriction_policy?: string | null;
}

export interface CreateTokenResult {
  readonly token: TokenView;
  /** False when deduplication returned an existing token instead of creating one. */
  readonly created: boolean;
}

export interface TokenFilter {
  readonly ids?: readonly string[];
  readonly types?: readonly string[];
  /** Case-insensitive exact matches, ANDed. */
  readonly metadata?: Readonly<Record<string, string>>;
  /** Only the children of the token with this id (associations.ts checks the parent first). */
  readonly parent?: string;
}

export interface TokenSearchRequest {
  readonly query: string;
  readonly page: number;
  readonly size: number;
}

export interface TokenService {
  /** POST /tokens (201; a deduplicated result returns the existing token, redacted if unreadable). */
  create(principal: Principal, request: CreateTokenRequest): Promise<CreateTokenResult>;
  /**
   * POST /tokenize: walks any JSON; `{type, data, …}` objects are token definitions → token views;
   * other primitives → `token` tokens → their id; objects and arrays recurse. All or nothing, one
   * transaction; the response has the request's shape.
   */
  tokenize(principal: Principal, body: unknown): Promise<unknown>;
  get(principal: Principal, id: string): Promise<TokenView>;
  /** GET /tokens: only tokens in containers the caller may read, each through its transform. */
  list(principal: Principal, filter: TokenFilter, page: PageRequest): Promise<Page<TokenView>>;
  /**
   * PATCH /tokens/{id} with an RFC 7386 merge patch: merge for `data`, `mask`, `metadata`; replace
   * for `containers`, `search_indexes`, `fingerprint_expression`, `deduplicate_token`, `expires_at`.
   */
  update(principal: Principal, id: string, patch: Readonly<Record<string, unknown>>): Promise<TokenView>;
  delete(principal: Principal, id: string): Promise<void>;
  /** POST /tokens/search (token:search). Invalid query → 400 naming the position. */
  search(principal: Principal, request: TokenSearchRequest): Promise<Page<TokenView>>;
  /** Physically deletes expired tokens (with an audit record each); returns how many. */
  sweepExpired(): Promise<number>;
}
