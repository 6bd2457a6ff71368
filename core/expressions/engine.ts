/**
 * The Liquid expression engine (liquidjs), configured once for untrusted templates:
 *
 * - `strictFilters`: an unknown filter is a parse error (400), never silently skipped.
 * - No file system: the `include`, `render` and `layout` tags are removed (they fail to parse) and the
 *   template loader is an empty in-memory map, so no template can read a file.
 * - `ownPropertyOnly`: `data.constructor`, `data.__proto__` … read as missing.
 * - Bounded work: each expression string is at most `maxExpressionBytes` (4 KiB) of UTF-8; a render
 *   stops after `maxRenderSteps` template nodes (100,000: outputs, tags, loop iterations), after
 *   `renderTimeLimitMs` (a wall-clock backstop) and after `memoryLimit` units of allocation (string
 *   and array sizes that liquidjs and our filters charge, and the rendered text; a `(1..100000000)`
 *   range fails at once). Every step, filter weight and memory unit is also charged to the shared
 *   budgets the render runs under (budget.ts: a stored mask's, a token's, the request's), which
 *   bound many expressions together.
 * - Before anything runs: when parsed, a template's least cost is read from its syntax tree
 *   (static-cost.ts: loops over ranges written with numbers, literal text, filter calls) and it is
 *   refused when that alone exceeds a render's limits; before each render, when it exceeds what
 *   the budgets have left. Ranges may only be a loop's collection, where `for` and `tablerow` check
 *   their size (at most 100,000 numbers) and charge for making them before liquidjs makes them.
 * - Parsed templates are kept in an LRU (`cacheSize`, 1000) keyed by the expression text, and so
 *   are templates refused when parsed, so a repeated refusal costs no parse.
 * - Rendering is synchronous (`renderSync` machinery); every filter is synchronous. Whole outputs of
 *   the simplest shape (direct-output.ts) are rendered without that machinery, with the same reads,
 *   filter calls and charges.
 *
 * Output: an expression that is exactly one `{{ … }}` output (no text or tag around it) yields the
 * output's VALUE: object, array, number, boolean, string, or `null` for a missing property. Anything
 * else renders to a string with Liquid's usual rules, except that a plain object renders as compact
 * JSON instead of `[object Object]`.
 *
 * Errors: every failure is `VALIDATION_FAILED` (400) with one message under the caller's field name.
 * Messages come from the expression (parse errors) or from our own filter reasons; an error raised by a
 * standard Liquid filter or by the runtime is reported generically, because its text could quote the
 * token data.
 */
import { Context, Drop, Liquid, Output, toValue, toValueSync } from 'liquidjs';
import type { Emitter, FilterImplOptions, Template } from 'liquidjs';
import { validationError } from '../errors/catalogue.ts';
import { currentRequestBudget } from './budget.ts';
import type { ExpressionBudget } from './budget.ts';
import { FilterError } from './filter-error.ts';
import { NOT_DIRECT, directOutputOf, directPathValue } from './direct-output.ts';
import type { DirectOutput } from './direct-output.ts';
import { CUSTOM_FILTERS, defaultRandom, toPlainJson } from './filters.ts';
import type { FilterCall } from './filters.ts';
import { LruCache } from './lru.ts';
import { describeParseError, describeRenderError, isLimitError } from './render-errors.ts';
import {
  CheckedForTag,
  CheckedTablerowTag,
  RenderMeter,
  customFilterSteps,
  meterOf,
  standardFilterSteps,
} from './render-meter.ts';
import { StaticLimitError, assertFitsRender, staticCost } from './static-cost.ts';
import type { StaticCost } from './static-cost.ts';
import type { RandomInt } from './text.ts';

export interface ExpressionEngineOptions {
  /** Parsed templates kept (LRU). Default 1000. */
  readonly cacheSize?: number;
  /** Largest expression, in UTF-8 bytes. Default 4096. */
  readonly maxExpressionBytes?: number;
  /**
   * Template nodes one render may visit (every output, tag and loop iteration counts). Default
   * 100,000. This is the deterministic bound on loops; the time limit below is only a backstop.
   */
  readonly maxRenderSteps?: number;
  /**
   * Wall-clock budget of one render, in milliseconds. Default 1000: generous on purpose, because a
   * garbage-collection pause or a busy CPU must not turn a legitimate render into a 400.
   */
  readonly renderTimeLimitMs?: number;
  /** Allocation budget of one render (characters / array elements). Default 2,500,000. */
  readonly memoryLimit?: number;
  /** Random source of the alias filters. Default: node's CSPRNG. */
  readonly random?: RandomInt;
  /**
   * Whole outputs of the simplest shape rendered without liquidjs' render machinery
   * (direct-output.ts). Default true; false renders everything through liquidjs (the tests'
   * reference).
   */
  readonly directOutputs?: boolean;
}

/**
 * The variables an expression sees. `metadata` is bound for fingerprint expressions only (a token's
 * identity may include it); masks, search indexes and alias expressions see `data` alone.
 */
export interface ExpressionScope {
  readonly data: unknown;
  readonly metadata?: Readonly<Record<string, string>>;
}

export const DEFAULT_CACHE_SIZE = 1000;
export const MAX_EXPRESSION_BYTES = 4096;
export const DEFAULT_RENDER_STEPS = 100_000;
export const DEFAULT_RENDER_TIME_LIMIT_MS = 1000;
/**
 * Room for the default `{{ data | stringify }}` fingerprint of data that fills a 1 MiB body: the
 * copy and the output are each charged (about 1,000,000 units apiece).
 */
export const DEFAULT_MEMORY_LIMIT = 2_500_000;
/** Parsing costs about one step per four bytes of template text (measured on dense templates). */
export const PARSE_BYTES_PER_STEP = 4;

/** Tags that would reach a file system; removed from the engine. */
export const REMOVED_TAGS: readonly string[] = ['include', 'render', 'layout'];

interface Compiled {
  readonly templates: Template[];
  /** True when the template is one `{{ … }}` output and nothing else. */
  readonly whole: boolean;
  /** How a whole output is rendered without liquidjs (read off its text), or null. */
  readonly direct: DirectOutput | null;
  /** The least a render costs (static-cost.ts), checked against the budgets before it starts. */
  readonly cost: StaticCost;
}

/** A template refused when parsed, cached like a parsed one so a repeated refusal costs no parse. */
interface Refused {
  readonly problem: string;
}

class CaptureEmitter implements Emitter {
  buffer = '';
  value: unknown = undefined;

  write(html: unknown): void {
    this.value = html;
  }
}

type LiquidLimiter = NonNullable<NonNullable<ConstructorParameters<typeof Context>[3]>['renderLimit']>;

/** Collects the rendered text; every write is charged to the render's memory limit. */
class TextEmitter implements Emitter {
  buffer = '';

  constructor(private readonly context: Context) {}

  write(html: unknown): void {
    const text = renderText(html);
    this.context.memoryLimit.use(text.length);
    this.buffer += text;
  }
}

/** Liquid's output stringification, with plain objects as compact JSON. */
function renderText(value: unknown): string {
  const v = toValue(value);
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return v.map(renderText).join('');
  if (typeof v === 'object' && !(v instanceof Drop)) return JSON.stringify(toPlainJson(v)) ?? '';
  return String(v);
}

/** The value of a whole-output expression, detached from the caller's data; a copy is charged. */
function wholeValue(value: unknown, charge: (units: number) => void): unknown {
  const v = toValue(value);
  if (v === undefined || v === null) return null;
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'object') return toPlainJson(v, charge) ?? null;
  // Not a copy, but output: a mask of many `{{ data }}` leaves must not multiply a large value.
  if (typeof v === 'string') charge(v.length);
  return v;
}

/**
 * One call of a custom filter in a render metered by `meter`: its steps charged, then its body.
 * The liquidjs path (`registerCustom`) and the direct one (direct-output.ts) both call this.
 */
function applyCustomFilter(
  name: string,
  input: unknown,
  args: readonly unknown[],
  meter: RenderMeter | undefined,
  charge: (units: number) => void,
  random: RandomInt,
): unknown {
  const body = CUSTOM_FILTERS[name];
  if (body === undefined) throw new FilterError('is not a filter', name);
  meter?.work(customFilterSteps(input));
  // Methods, not arrow members: nothing per call beyond the object.
  const call: FilterCall = {
    charge(units) {
      charge(units);
    },
    work(steps) {
      meter?.work(steps);
    },
    random,
  };
  try {
    return body(input, args, call);
  } catch (error) {
    if (error instanceof FilterError && error.filter === undefined) error.filter = name;
    throw error;
  }
}

/** A cached template, or its refusal thrown again. */
function usable(entry: Compiled | Refused): Compiled {
  if ('problem' in entry) throw new StaticLimitError(entry.problem);
  return entry;
}

function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

export class ExpressionEngine {
  readonly maxExpressionBytes: number;
  private readonly maxRenderSteps: number;
  private readonly renderTimeLimitMs: number;
  private readonly memoryLimit: number;
  private readonly liquid: Liquid;
  private readonly cache: LruCache<string, Compiled | Refused>;
  private readonly random: RandomInt;
  private readonly directOutputs: boolean;
  private parses = 0;

  constructor(options: ExpressionEngineOptions = {}) {
    this.maxExpressionBytes = options.maxExpressionBytes ?? MAX_EXPRESSION_BYTES;
    this.cache = new LruCache(options.cacheSize ?? DEFAULT_CACHE_SIZE);
    this.random = options.random ?? defaultRandom;
    this.directOutputs = options.directOutputs ?? true;
    this.maxRenderSteps = options.maxRenderSteps ?? DEFAULT_RENDER_STEPS;
    this.renderTimeLimitMs = options.renderTimeLimitMs ?? DEFAULT_RENDER_TIME_LIMIT_MS;
    this.memoryLimit = options.memoryLimit ?? DEFAULT_MEMORY_LIMIT;
    this.liquid = new Liquid({
      strictFilters: true,
      strictVariables: false,
      ownPropertyOnly: true,
      jsTruthy: false,
      // An empty in-memory template map: even a tag that slipped through could not read a file.
      templates: {},
      relativeReference: false,
      cache: false,
      globals: {},
      timezoneOffset: 0,
      locale: 'en-US',
      // A 4 KiB UTF-8 string has at most 4096 UTF-16 units; the parse limit is only a backstop.
      parseLimit: this.maxExpressionBytes * 2,
      // Both replaced per render by a RenderMeter; these are only the fallback.
      renderLimit: this.renderTimeLimitMs,
      memoryLimit: this.memoryLimit,
    });
    for (const tag of REMOVED_TAGS) delete this.liquid.tags[tag];
    this.liquid.registerTag('for', CheckedForTag);
    this.liquid.registerTag('tablerow', CheckedTablerowTag);
    this.wrapStandardFilters();
    for (const name of Object.keys(CUSTOM_FILTERS)) this.registerCustom(name);
  }

  /** Number of parses so far (cache misses); for tests and metrics. */
  get parseCount(): number {
    return this.parses;
  }

  /** Number of parsed templates currently cached. */
  get cachedTemplates(): number {
    return this.cache.size;
  }

  /** Names of every filter the engine knows (standard and custom). */
  filterNames(): string[] {
    return Object.keys(this.liquid.filters).sort();
  }

  /** The parse error message of `expression`, or null when it is a valid expression. */
  validate(expression: unknown): string | null {
    const problem = this.sizeProblem(expression);
    if (problem !== null) return problem;
    try {
      this.compile(expression as string, true);
      return null;
    } catch (error) {
      return describeParseError(error);
    }
  }

  /**
   * Evaluate `expression` with `scope`. A whole-output expression yields its value (see the module
   * comment); any other template yields a string. Throws VALIDATION_FAILED naming `field`.
   *
   * The render's work is charged to `budget` and its ancestors; without one, to the current
   * request's budget (if any).
   */
  evaluate(
    expression: string,
    scope: ExpressionScope,
    field = 'expression',
    budget: ExpressionBudget | undefined = currentRequestBudget(),
  ): unknown {
    const problem = this.sizeProblem(expression);
    if (problem !== null) throw validationError({ [field]: [problem] });
    let compiled: Compiled;
    try {
      compiled = this.compile(expression);
    } catch (error) {
      throw validationError({ [field]: [describeParseError(error)] });
    }
    const budgets = budget?.chain() ?? [];
    try {
      // What the render is sure to cost must fit what is left, or it does not start.
      for (const b of budgets) b.assertAffords(compiled.cost);
    } catch (error) {
      throw validationError({ [field]: [describeRenderError(error)] });
    }
    const meter = new RenderMeter(
      { steps: this.maxRenderSteps, memory: this.memoryLimit, ms: this.renderTimeLimitMs },
      budgets,
    );
    try {
      const input = compiled.direct === null ? NOT_DIRECT : directPathValue(scope.data, compiled.direct.path);
      if (input !== NOT_DIRECT) return this.renderDirect(compiled.direct!, input, meter);
      // A fresh environment per render: `{% increment data %}` may write to it, never to the caller's.
      const environment: Record<string, unknown> = { data: scope.data };
      if (scope.metadata !== undefined) environment['metadata'] = scope.metadata;
      const limiter = meter as unknown as LiquidLimiter;
      const context = new Context(
        environment,
        this.liquid.options,
        { sync: true },
        { liquid: this.liquid, renderLimit: limiter, memoryLimit: limiter },
      );
      if (compiled.whole) {
        const emitter = new CaptureEmitter();
        toValueSync(this.liquid.renderer.renderTemplates(compiled.templates, context, emitter));
        return wholeValue(emitter.value, (units) => meter.use(units));
      }
      const emitter = new TextEmitter(context);
      toValueSync(this.liquid.renderer.renderTemplates(compiled.templates, context, emitter));
      return emitter.buffer;
    } catch (error) {
      throw validationError({ [field]: [describeRenderError(error)] });
    } finally {
      meter.finish();
    }
  }

  /**
   * A whole output read off its text: liquidjs' renderer checks its render limit twice (before
   * its loop and for the one template) before the output's value is evaluated; so does this.
   */
  private renderDirect(output: DirectOutput, input: unknown, meter: RenderMeter): unknown {
    meter.check(performance.now());
    meter.check(performance.now());
    let value = input;
    for (const filter of output.filters) {
      value = applyCustomFilter(
        filter.name,
        value,
        filter.args,
        meter,
        (units) => meter.use(units),
        this.random,
      );
    }
    // The output's `toValue`, then the whole value as liquidjs' path makes it.
    return wholeValue(toValue(value), (units) => meter.use(units));
  }

  private sizeProblem(expression: unknown): string | null {
    if (typeof expression !== 'string') return 'must be a string';
    if (utf8Length(expression) > this.maxExpressionBytes) {
      return `must be at most ${this.maxExpressionBytes} bytes`;
    }
    return null;
  }

  /**
   * The parsed template, from the cache or parsed now. `charged`: a parse is charged to the current
   * request's budget (PARSE_BYTES_PER_STEP). Validation charges, which is where every write meets
   * its expressions first; evaluation does not, so a read never fails because the cache was cold
   * (a read's parsing is bounded by the size of a mask instead).
   */
  private compile(expression: string, charged = false): Compiled {
    const hit = this.cache.get(expression);
    if (hit !== undefined) return usable(hit);
    if (charged)
      currentRequestBudget()?.chargeSteps(Math.ceil(utf8Length(expression) / PARSE_BYTES_PER_STEP));
    this.parses += 1;
    const templates = this.liquid.parse(expression);
    let cost: StaticCost;
    try {
      cost = staticCost(templates);
      assertFitsRender(cost, { steps: this.maxRenderSteps, memory: this.memoryLimit });
    } catch (error) {
      if (!(error instanceof StaticLimitError)) throw error;
      this.cache.set(expression, { problem: error.message });
      throw error;
    }
    const whole = templates.length === 1 && templates[0] instanceof Output;
    const compiled: Compiled = {
      templates,
      whole,
      direct: whole && this.directOutputs ? directOutputOf(expression) : null,
      cost,
    };
    this.cache.set(expression, compiled);
    return compiled;
  }

  private registerCustom(name: string): void {
    const random = this.random;
    const handler = function (this: { context: Context }, input: unknown, ...args: unknown[]): unknown {
      const charge = (units: number) => this.context.memoryLimit.use(units);
      return applyCustomFilter(name, input, args, meterOf(this.context), charge, random);
    };
    this.liquid.registerFilter(name, handler);
  }

  /**
   * Standard filters keep their behaviour; a failure inside one is re-thrown as a FilterError that
   * names the filter only (their own messages might quote the value). Limit errors pass through.
   */
  private wrapStandardFilters(): void {
    for (const [name, options] of Object.entries(this.liquid.filters)) {
      const original = typeof options === 'function' ? options : options.handler;
      const raw = typeof options === 'function' ? false : options.raw;
      const handler = function (this: { context: Context }, input: unknown, ...args: unknown[]): unknown {
        meterOf(this.context)?.work(standardFilterSteps(name, input));
        try {
          return original.apply(this as never, [input, ...args]);
        } catch (error) {
          if (isLimitError(error)) throw error;
          throw new FilterError('could not be applied to its input', name);
        }
      };
      const wrapped: FilterImplOptions = { handler, raw };
      this.liquid.registerFilter(name, wrapped);
    }
  }
}
