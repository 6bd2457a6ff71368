/**
 * Rule conditions: `{attribute, operator, value}` over a token's `id` or `container`, operator
 * `equals` or `starts_with`; all conditions of a rule must hold. Only expiring applications carry
 * conditioned rules (a key for one front-end reveal of named tokens).
 */
export const CONDITION_ATTRIBUTES = ['id', 'container'] as const;
export type ConditionAttribute = (typeof CONDITION_ATTRIBUTES)[number];

export const CONDITION_OPERATORS = ['equals', 'starts_with'] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

export interface Condition {
  readonly attribute: ConditionAttribute;
  readonly operator: ConditionOperator;
  readonly value: string;
}

/** Conditions per rule at most, and the longest value (a token id is at most 400 characters). */
export const MAX_CONDITIONS = 10;
export const MAX_CONDITION_VALUE = 500;

/**
 * What an access decision knows about the token acted on. `id` is absent where there is no token
 * yet (create): a condition on `id` then never holds, so a conditioned rule fails closed.
 */
export interface TokenRef {
  readonly container: string;
  readonly id?: string;
}

function holds(condition: Condition, token: TokenRef): boolean {
  const actual = condition.attribute === 'id' ? token.id : token.container;
  if (actual === undefined) return false;
  return condition.operator === 'equals' ? actual === condition.value : actual.startsWith(condition.value);
}

/** Whether every condition holds for `token` (an empty list never matches: it would match all). */
export function conditionsHold(conditions: readonly Condition[], token: TokenRef): boolean {
  return conditions.length > 0 && conditions.every((c) => holds(c, token));
}

export function isConditionAttribute(value: unknown): value is ConditionAttribute {
  return typeof value === 'string' && (CONDITION_ATTRIBUTES as readonly string[]).includes(value);
}

export function isConditionOperator(value: unknown): value is ConditionOperator {
  return typeof value === 'string' && (CONDITION_OPERATORS as readonly string[]).includes(value);
}

/**
 * The containers a conditioned rule can reach, for the grant ceiling: exactly one container, every
 * container starting with a prefix, or (conditions on `id` only) any container.
 */
export type ContainerReach =
  | { readonly kind: 'exactly'; readonly container: string }
  | { readonly kind: 'prefix'; readonly prefix: string };

export function reachOf(conditions: readonly Condition[]): ContainerReach {
  const onContainer = conditions.filter((c) => c.attribute === 'container');
  const exact = onContainer.find((c) => c.operator === 'equals');
  if (exact) return { kind: 'exactly', container: exact.value };
  // Every prefix must hold, so the longest one bounds the reach (conflicting ones reach nothing,
  // and checking the longest is then merely stricter than needed).
  const longest = onContainer.reduce((a, c) => (c.value.length > a.length ? c.value : a), '/');
  return { kind: 'prefix', prefix: longest };
}
