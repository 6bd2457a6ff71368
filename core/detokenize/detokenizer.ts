/**
 * The one detokenizer: replaces every `{{ <token id> | filters }}` expression in a JSON value (or a
 * plain string) with the token's data, as the caller's transform for `permission` shows it.
 *
 * Rules:
 * - A string that is exactly one expression becomes the expression's value (a complex token's whole
 *   JSON object, a number, …) in `json` mode; any other string gets each expression's value as text
 *   (objects as compact JSON, null as the empty string). In `text` mode every substitution is text.
 * - At most `maxTokens` (100) distinct token ids per call, counted before anything is looked up.
 * - Unknown (or expired) ids → 400 listing them, and a token the caller may not even read is answered
 *   exactly like an unknown id (same status, body and cost: no decryption before every decision);
 *   a token it may read but not `permission` → 403. A caller without `permission` anywhere → 403
 *   before any lookup. Nothing is audited or counted when the call fails.
 * - Each distinct token gets one audit entry (`use` for token:use, `read` for token:read) and counts
 *   once as monthly active; the result is returned only once those are durable (they join the
 *   vault's read-audit batch, core/tokens/read-audit.ts). The lookups are plain locked SELECTs.
 * - Filters run through the shared expression engine (bounded render budget) before anything is
 *   recorded, so a failing filter leaves no audit entry behind.
 */
import { authorize } from '../access/authorize.ts';
import type { Principal } from '../access/principal.ts';
import type { Transform } from '../access/rules.ts';
import type { TenantKeys } from '../crypto/tenant-keys.ts';
import { isVaultError, validationError } from '../errors/catalogue.ts';
import { defaultEngine, expressionText } from '../expressions/index.ts';
import { tokenEntityType } from '../audit/entity-types.ts';
import { readAuditOf } from '../tokens/read-audit.ts';
import { revealedBy } from '../tokens/token-audit.ts';
import { TokenCrypto } from '../tokens/token-crypto.ts';
import { transformOnExisting } from '../tokens/access-scope.ts';
import { findToken } from '../tokens/token-store.ts';
import type { TokenRow } from '../tokens/token-store.ts';
import { maskOf, needsData, shownOf } from '../tokens/token-view.ts';
import type { VaultHandle } from '../vault/types.ts';
import { keyedRecord } from '../validation/keyed-record.ts';
import { mayHoldExpression, scanText } from './scanner.ts';
import type { Piece } from './scanner.ts';

/** Distinct tokens one request may detokenize. */
export const MAX_DETOKENIZED_TOKENS = 100;
/** Deepest object/array nesting walked; deeper values are refused rather than overflow the stack. */
export const MAX_DETOKENIZE_DEPTH = 64;

export type DetokenizePermission = 'token:use' | 'token:read';

export interface DetokenizeOptions {
  /** Checked on each token's container; its transform decides what data is substituted. */
  readonly permission: DetokenizePermission;
  /** Name of the value's root in error field names. Default `body`. */
  readonly field?: string;
  /** `json` (default): a string that is one expression takes the token's value; `text`: always text. */
  readonly mode?: 'json' | 'text';
  /** Default MAX_DETOKENIZED_TOKENS. */
  readonly maxTokens?: number;
}

export interface Detokenizer {
  /**
   * A copy of `value` (any JSON value) with every expression replaced, sharing the arrays and
   * objects that hold none; `value` itself when it holds none.
   */
  detokenize(principal: Principal, value: unknown, options: DetokenizeOptions): Promise<unknown>;
  /** `text` with every expression replaced by text. */
  detokenizeText(
    principal: Principal,
    text: string,
    options: Omit<DetokenizeOptions, 'mode'>,
  ): Promise<string>;
}

const AUDIT = {
  'token:use': { operation: 'use', message: 'Token used' },
  'token:read': { operation: 'read', message: 'Token detokenized' },
} as const;

/**
 * Where a value holds expressions: the pieces of a string that holds one, or the children of an
 * array or object that hold one (by index or key); parts holding none are not listed.
 */
type Plan = Piece[] | Map<string | number, Plan>;

/**
 * The plan of `value` (undefined when it holds no expression), its token ids added to `ids`;
 * refuses deep nesting. `field` names the value in errors.
 */
function scanValue(value: unknown, field: string, ids: Set<string>, depth = 0): Plan | undefined {
  if (depth > MAX_DETOKENIZE_DEPTH) {
    throw validationError({ [field]: [`is nested deeper than ${MAX_DETOKENIZE_DEPTH} levels`] });
  }
  if (typeof value === 'string') {
    if (!mayHoldExpression(value)) return undefined;
    const pieces = scanText(value, field);
    let holds = false;
    for (const piece of pieces) {
      if (piece.kind !== 'expression') continue;
      holds = true;
      ids.add(piece.expression.tokenId);
    }
    return holds ? pieces : undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  let children: Map<string | number, Plan> | undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const child = scanValue(value[i], `${field}[${i}]`, ids, depth + 1);
      if (child !== undefined) (children ??= new Map()).set(i, child);
    }
  } else {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const child = scanValue(record[key], `${field}.${key}`, ids, depth + 1);
      if (child !== undefined) (children ??= new Map()).set(key, child);
    }
  }
  return children;
}

/**
 * The caller's transform on an existing token, or null when it may not even read the token: such a
 * token is answered like an unknown id (transformOnExisting's rule, as for GET /tokens/{id}). A caller
 * that may read it but not `permission` there still gets the 403, which tells it nothing new.
 */
function transformIfKnown(
  principal: Principal,
  permission: DetokenizePermission,
  row: TokenRow,
): Transform | null {
  try {
    return transformOnExisting(principal, permission, row);
  } catch (error) {
    if (isVaultError(error, 'NOT_FOUND')) return null;
    throw error;
  }
}

function applyFilters(data: unknown, filters: string, field: string): unknown {
  if (filters === '') return data;
  return defaultEngine().evaluate(`{{ data | ${filters} }}`, { data }, field);
}

function substitute(
  pieces: readonly Piece[],
  data: ReadonlyMap<string, unknown>,
  field: string,
  mode: 'json' | 'text',
): unknown {
  const valueOf = (piece: Extract<Piece, { kind: 'expression' }>): unknown =>
    applyFilters(data.get(piece.expression.tokenId) ?? null, piece.expression.filters, field);
  const only = pieces[0];
  if (mode === 'json' && pieces.length === 1 && only?.kind === 'expression') return valueOf(only) ?? null;
  return pieces
    .map((piece) => (piece.kind === 'text' ? piece.text : (expressionText(valueOf(piece)) ?? '')))
    .join('');
}

/** A copy of `value` with the expressions of `plan` substituted; parts without any are kept as they are. */
function rebuild(
  value: unknown,
  field: string,
  plan: Plan,
  data: ReadonlyMap<string, unknown>,
  mode: 'json' | 'text',
): unknown {
  if (Array.isArray(plan)) return substitute(plan, data, field, mode);
  if (Array.isArray(value)) {
    return value.map((item, i) => {
      const child = plan.get(i);
      return child === undefined ? item : rebuild(item, `${field}[${i}]`, child, data, mode);
    });
  }
  const record = value as Record<string, unknown>;
  const out = keyedRecord<unknown>();
  for (const key of Object.keys(record)) {
    const child = plan.get(key);
    out[key] = child === undefined ? record[key] : rebuild(record[key], `${field}.${key}`, child, data, mode);
  }
  return out;
}

export function createDetokenizer(vault: VaultHandle, keys: TenantKeys): Detokenizer {
  const crypto = new TokenCrypto(keys);
  const reads = readAuditOf(vault);

  /** Opens each token's data as the caller's transform shows it; audits and counts each once. */
  const resolve = async <T>(
    principal: Principal,
    ids: readonly string[],
    permission: DetokenizePermission,
    finish: (data: ReadonlyMap<string, unknown>) => T,
  ): Promise<T> => {
    // A caller without the permission anywhere is refused before any token is looked up.
    authorize(principal, permission);
    const db = vault.db;
    const now = vault.clock.now();
    const found: Array<{ row: TokenRow; transform: Transform }> = [];
    const unknown: string[] = [];
    for (const id of ids) {
      const soon = findToken(db, vault, principal.tenantId, id, now);
      const row = soon instanceof Promise ? await soon : soon;
      const transform = row === undefined ? null : transformIfKnown(principal, permission, row);
      if (row === undefined || transform === null) unknown.push(id);
      else found.push({ row, transform });
    }
    // Every decision is taken before anything is decrypted, so a token out of reach costs what an
    // unknown id costs: one lookup.
    if (unknown.length > 0) {
      throw validationError(
        { tokens: unknown.map((id) => `no token with id ${id}`) },
        `Failed to detokenize some tokens: ${unknown.join(', ')}`,
      );
    }
    const data = new Map<string, unknown>();
    for (const { row, transform } of found) {
      const mask = maskOf(row);
      if (!needsData(transform, row, mask)) {
        data.set(row.id, null);
        continue;
      }
      const opened = crypto.open(db, row.tenant_id, row.id, row.data);
      const shown = shownOf(transform, row, opened instanceof Promise ? await opened : opened, mask);
      data.set(row.id, shown === undefined ? null : shown.value);
    }
    // Filters run here so that a failing filter leaves no audit entry or activity behind.
    const result = finish(data);
    const { operation, message } = AUDIT[permission];
    await reads.record({
      // One entry per token, saying whether its data went out unmasked.
      entries: found.map(({ row, transform }) => ({
        principal,
        event: {
          tenantId: row.tenant_id,
          entityType: tokenEntityType(row.type),
          entityId: row.id,
          operation,
          message,
          revealed: revealedBy(transform),
        },
      })),
      activeTokens: { tenantId: principal.tenantId, tokenIds: ids },
    });
    return result;
  };

  const run = async (principal: Principal, value: unknown, options: DetokenizeOptions): Promise<unknown> => {
    const field = options.field ?? 'body';
    const maxTokens = options.maxTokens ?? MAX_DETOKENIZED_TOKENS;
    const distinct = new Set<string>();
    const plan = scanValue(value, field, distinct);
    if (plan === undefined) return value;
    const ids = [...distinct];
    if (ids.length > maxTokens) {
      throw validationError(
        { [field]: [`detokenizes ${ids.length} tokens; at most ${maxTokens} are allowed per request`] },
        `At most ${maxTokens} tokens can be detokenized in one request.`,
      );
    }
    return resolve(principal, ids, options.permission, (data) =>
      rebuild(value, field, plan, data, options.mode ?? 'json'),
    );
  };

  return {
    detokenize: run,
    async detokenizeText(principal, text, options) {
      return (await run(principal, text, { ...options, mode: 'text' })) as string;
    },
  };
}
