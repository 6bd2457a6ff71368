/**
 * What a parsed template is sure to cost before it runs, read from its syntax tree once when it is
 * parsed (and cached with it), so an expression that cannot fit its limits is refused without
 * evaluating anything: `{% for i in (1..99999) %}{% endfor %}` needs 99,999 loop iterations whatever
 * the data, more than a token's budget allows, and is answered 400 at once instead of after
 * spending that budget.
 *
 * The cost is a lower bound, counted the way a render is counted (engine.ts, RenderMeter):
 * - steps: one per template node visited and one per template list rendered, as liquidjs' render
 *   limiter sees them; a filter call's `FILTER_STEPS`; a range's allocation
 *   (`rangeSteps`); a loop body's steps times its iterations when the collection is a range
 *   written with numbers (and `limit:`/`offset:` are numbers too). Anything decided by the data
 *   (conditions, loops over data, filter inputs) counts as its cheapest case: nothing;
 * - memory: the literal text a render writes (times the loops around it) and the numbers of
 *   ranges written with numbers.
 * The budgets still count every render at run time; this only refuses early what cannot succeed.
 *
 * It also enforces two rules of shape:
 * - a range `(a..b)` is only the collection of a `for` or `tablerow` loop, where its size is
 *   checked before the numbers are made (`checkRange`); as any other value it could make up to a
 *   memory limit's worth of numbers at once. A range written with numbers may hold at most
 *   `MAX_RANGE_NUMBERS`;
 * - tags nest at most `MAX_TAG_NESTING` levels.
 */
import {
  BreakTag,
  CaptureTag,
  ContinueTag,
  ForTag,
  LiquidTag,
  Output,
  TablerowTag,
  TypeGuards,
  toValue,
  toValueSync,
} from 'liquidjs';
import type { Template, Token } from 'liquidjs';
import { FILTER_STEPS } from './budget.ts';

/** Numbers one range may hold: a loop can never take more iterations than a render has steps. */
export const MAX_RANGE_NUMBERS = 100_000;
/** Numbers of a range made per step charged: making one is about a 32nd of a template node. */
export const RANGE_NUMBERS_PER_STEP = 32;
/** Tags nested in tags, at most. */
export const MAX_TAG_NESTING = 32;

export interface StaticCost {
  readonly steps: number;
  readonly memory: number;
}

/**
 * A template refused before it runs: it breaks a rule of shape, or its syntax alone exceeds a
 * limit. The message names the rule or limit, never data.
 */
export class StaticLimitError extends Error {
  override readonly name = 'StaticLimitError';
}

/** Steps charged for making a range of `size` numbers. */
export function rangeSteps(size: number): number {
  return Math.ceil(size / RANGE_NUMBERS_PER_STEP);
}

/**
 * How many numbers `(low..high)` holds, as liquidjs makes it (`low` up to `high` by one); throws a
 * StaticLimitError beyond MAX_RANGE_NUMBERS (an infinite bound included).
 */
export function rangeSize(low: unknown, high: unknown): number {
  const span = Number(high) + 1 - Number(low);
  if (Number.isNaN(span) || span <= 0) return 0;
  if (span > MAX_RANGE_NUMBERS)
    throw new StaticLimitError(`a range may hold at most ${MAX_RANGE_NUMBERS} numbers`);
  return Math.ceil(span);
}

/** The value of a token written in the template (a number, a quoted string, a literal), else undefined. */
function writtenValue(token: Token | undefined): unknown {
  if (token === undefined || !('content' in token)) return undefined;
  return toValue((token as { content: unknown }).content);
}

/** A value as `Array.prototype.slice` reads an index (ToIntegerOrInfinity). */
function sliceIndex(value: unknown): number {
  const number = Number(value);
  return Number.isNaN(number) ? 0 : Math.trunc(number);
}

/** The length of `slice(start, end)` of a list of `length` items. */
function sliceLength(length: number, start: number, end = length): number {
  const from = start < 0 ? Math.max(length + start, 0) : Math.min(start, length);
  const to = end < 0 ? Math.max(length + end, 0) : Math.min(end, length);
  return Math.max(0, to - from);
}

type Loop = ForTag | TablerowTag;

function isLoop(template: Template): template is Loop {
  return template instanceof ForTag || template instanceof TablerowTag;
}

/** Properties that hold no part of the template's own arguments (the engine, raw tokens, code). */
const NOT_ARGUMENTS: ReadonlySet<string> = new Set(['liquid', 'token', 'tokenizer', 'handler', 'input']);

/** Whether `value` is a template node (a tag, an output or text), judged by the token it was parsed from. */
function isTemplate(value: object): boolean {
  const token = (value as { token?: unknown }).token;
  return TypeGuards.isTagToken(token) || TypeGuards.isOutputToken(token) || TypeGuards.isHTMLToken(token);
}

/**
 * Every range among a template's own arguments (not those of the templates inside it): walks the
 * values the tag or output parsed (expressions, filters and their arguments, hashes, branches).
 */
function rangesOf(template: Template): Token[] {
  const found: Token[] = [];
  const seen = new Set<object>();
  const visit = (value: unknown, root: boolean): void => {
    if (value === null || typeof value !== 'object' || seen.has(value)) return;
    seen.add(value);
    // A template inside this one is walked as a node of its own.
    if (!root && isTemplate(value)) return;
    if (TypeGuards.isRangeToken(value)) found.push(value);
    for (const [key, member] of Object.entries(value)) {
      if (!NOT_ARGUMENTS.has(key)) visit(member, false);
    }
  };
  visit(template, true);
  return found;
}

/** Whether a tag of `kinds` may cut this body short (not counting those inside inner loops). */
function mayLeave(
  templates: readonly Template[],
  kinds: ReadonlyArray<typeof BreakTag | typeof ContinueTag>,
): boolean {
  return templates.some(
    (t) => kinds.some((kind) => t instanceof kind) || (!isLoop(t) && mayLeave(childrenOf(t), kinds)),
  );
}

function childrenOf(template: Template): Template[] {
  return template.children === undefined ? [] : toValueSync(template.children(false, true));
}

/**
 * The iterations a loop is sure to take, and the size of its range: none when the data decides.
 * `for` cuts its collection as liquidjs does, `slice(offset)` then `slice(0, limit)`; a `tablerow`
 * with `offset:` or `limit:` counts as none (a lower bound).
 */
function loopIterations(loop: Loop): { iterations: number; rangeNumbers: number } {
  const collection = loop.collection;
  if (!TypeGuards.isRangeToken(collection)) return { iterations: 0, rangeNumbers: 0 };
  const low = writtenValue(collection.lhs);
  const high = writtenValue(collection.rhs);
  if (low === undefined || high === undefined) return { iterations: 0, rangeNumbers: 0 };
  const size = rangeSize(low, high);
  const hash = (loop instanceof ForTag ? loop.hash : loop.args).hash;
  const cut = { offset: hash['offset'], limit: hash['limit'] };
  if (cut.offset === undefined && cut.limit === undefined) return { iterations: size, rangeNumbers: size };
  const offset = cut.offset === undefined ? 0 : writtenValue(cut.offset);
  const limit = cut.limit === undefined ? size : writtenValue(cut.limit);
  if (loop instanceof TablerowTag || offset === undefined || limit === undefined)
    return { iterations: 0, rangeNumbers: size };
  const afterOffset = sliceLength(size, sliceIndex(offset));
  return { iterations: sliceLength(afterOffset, 0, sliceIndex(limit)), rangeNumbers: size };
}

/**
 * `writes`: whether the list renders into the render's output (whose text is charged as memory);
 * a capture renders into a variable of its own, which is not.
 */
function listCost(templates: readonly Template[], depth: number, writes: boolean): StaticCost {
  // renderTemplates counts itself and then each template it renders.
  let steps = 1 + templates.length;
  let memory = 0;
  for (const template of templates) {
    const cost = templateCost(template, depth, writes);
    steps += cost.steps;
    memory += cost.memory;
  }
  return { steps, memory };
}

function templateCost(template: Template, depth: number, writes: boolean): StaticCost {
  // `depth` blocks around this one: a block here is the (depth + 1)th level.
  if (template.children !== undefined && depth >= MAX_TAG_NESTING)
    throw new StaticLimitError(`tags may nest at most ${MAX_TAG_NESTING} levels`);
  const loop = isLoop(template) ? template : undefined;
  for (const range of rangesOf(template)) {
    if (range !== loop?.collection) {
      throw new StaticLimitError('a range (a..b) may only be the collection of a for or tablerow loop');
    }
  }
  if (TypeGuards.isHTMLToken(template.token))
    return { steps: 0, memory: writes ? template.token.getContent().length : 0 };
  if (template instanceof Output) return { steps: FILTER_STEPS * template.value.filters.length, memory: 0 };
  if (loop !== undefined) {
    const { iterations, rangeNumbers } = loopIterations(loop);
    const body = listCost(loop.templates, depth + 1, writes);
    if (loop instanceof ForTag) listCost(loop.elseTemplates, depth + 1, writes);
    // A body that may break or continue is sure only of being entered (its list and first node),
    // and one that may break only of its first iteration.
    const sure = mayLeave(loop.templates, [BreakTag, ContinueTag]) ? { steps: 2, memory: 0 } : body;
    const times = mayLeave(loop.templates, [BreakTag]) ? Math.min(iterations, 1) : iterations;
    return {
      steps: rangeSteps(rangeNumbers) + times * sure.steps,
      memory: rangeNumbers + times * sure.memory,
    };
  }
  const children = childrenOf(template);
  const inside = listCost(children, depth + 1, writes && !(template instanceof CaptureTag));
  // A capture and a `liquid` tag always render their templates; other blocks depend on the data.
  return template instanceof CaptureTag || template instanceof LiquidTag ? inside : { steps: 0, memory: 0 };
}

/** The least a render of `templates` costs; throws a StaticLimitError for a rule of shape broken. */
export function staticCost(templates: readonly Template[]): StaticCost {
  return listCost(templates, 0, true);
}

/**
 * Throws a StaticLimitError when `cost` alone exceeds one render's limits (engine.ts): such an
 * expression could never be evaluated, so it is refused when it is parsed.
 */
export function assertFitsRender(
  cost: StaticCost,
  limits: { readonly steps: number; readonly memory: number },
): void {
  if (cost.steps > limits.steps) {
    throw new StaticLimitError(
      `the expression needs at least ${cost.steps} steps, more than the render step limit of ${limits.steps}`,
    );
  }
  if (cost.memory > limits.memory) {
    throw new StaticLimitError(
      `the expression needs at least ${cost.memory} memory units, more than the memory limit of ${limits.memory}`,
    );
  }
}
