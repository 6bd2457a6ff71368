/**
 * What a render may spend: its own step, memory and time limits, charged also to the shared
 * budgets it runs under (budget.ts), with the weights of filter calls and of loop ranges, and the
 * `for` and `tablerow` tags that charge a range before liquidjs makes it.
 */
import { ForTag, TablerowTag, TypeGuards, evalTokenValue, toValue } from 'liquidjs';
import type { Context, Emitter, Template } from 'liquidjs';
import { FILTER_STEPS } from './budget.ts';
import type { ExpressionBudget } from './budget.ts';
import { StaticLimitError, rangeSize, rangeSteps } from './static-cost.ts';

/** Thrown when a render exhausts its own step, memory or time limit. */
export class RenderLimitError extends Error {}

/**
 * Wall-clock time a render counts in full before its CPU time is consulted: far above a normal
 * render (microseconds), far below every time limit.
 */
const CPU_ANCHOR_MS = 5;

/**
 * Stands in for both of liquidjs' per-render Limiters: `check(now)` runs before every template node
 * (a step), `use(units)` on every allocation liquidjs or a filter charges (memory). Each is counted
 * against this render's own limits and charged to the shared budgets (`budgets`: a token's, a
 * request's). Counting steps gives a bound a GC pause cannot trip; the time checks are backstops.
 *
 * A render's time is wall-clock time, except that past its first `CPU_ANCHOR_MS` it is the smaller
 * of wall-clock time and the process's CPU time: both are upper bounds of the render's own work,
 * and only the CPU time leaves out the time the thread waited for a core on a loaded machine, which
 * must not turn a valid request into a 400. The CPU is read only when the wall-clock time alone would
 * exceed a limit (and once at the anchor), so a normal render never pays for it.
 */
export class RenderMeter {
  private steps = 0;
  private memory = 0;
  private readonly started = performance.now();
  private anchor: { readonly wall: number; readonly cpu: NodeJS.CpuUsage } | undefined;

  constructor(
    private readonly limits: { readonly steps: number; readonly memory: number; readonly ms: number },
    private readonly budgets: readonly ExpressionBudget[],
  ) {}

  /** liquidjs' render limiter: one template node. */
  check(now: number): void {
    this.work(1);
    const wall = now - this.started;
    if (this.anchor === undefined && wall > CPU_ANCHOR_MS)
      this.anchor = { wall: now, cpu: process.cpuUsage() };
    if (this.fits(wall)) return;
    const running = this.elapsed(now);
    if (running > this.limits.ms) throw new RenderLimitError('the expression exceeded the render time limit');
    for (const budget of this.budgets) budget.checkTime(running);
  }

  private fits(running: number): boolean {
    if (running > this.limits.ms) return false;
    for (const budget of this.budgets) if (!budget.fitsTime(running)) return false;
    return true;
  }

  /** The render's time so far (see the class comment). */
  private elapsed(now: number): number {
    const wall = now - this.started;
    if (this.anchor === undefined) return wall;
    const cpu = process.cpuUsage(this.anchor.cpu);
    return this.anchor.wall - this.started + Math.min(now - this.anchor.wall, (cpu.user + cpu.system) / 1000);
  }

  /** liquidjs' memory limiter. */
  use(units: number): void {
    if (!(+units > 0)) return;
    this.memory += +units;
    if (this.memory > this.limits.memory)
      throw new RenderLimitError('the expression exceeded the memory limit');
    for (const budget of this.budgets) budget.chargeMemory(+units);
  }

  /** Steps beyond the node count: the weight of a filter call. */
  work(steps: number): void {
    this.steps += steps;
    if (this.steps > this.limits.steps) {
      throw new RenderLimitError('the expression exceeded the render step limit');
    }
    for (const budget of this.budgets) budget.chargeSteps(steps);
  }

  /** Books the render's time on the shared budgets. */
  finish(): void {
    const ms = this.elapsed(performance.now());
    for (const budget of this.budgets) budget.addTime(ms);
  }
}

/**
 * Extra steps per element of an array a filter is applied to: the time the dearest array filter
 * (`where_exp`/`find_exp`; then `group_by`/`where`, `sort`, `map`) spends per element of a large
 * array, over the time of one step. The dearest sets the weight, so no array filter is cheaper than
 * it looks; measure both again when the engine or the filters change.
 */
export const FILTER_STEPS_PER_ELEMENT = 16;
/** String characters per extra step of a filter call: `split` walks more than that in one step's time. */
export const FILTER_CHARACTERS_PER_STEP = 64;

/** Standard filters that do not walk their input. */
const CONSTANT_TIME_FILTERS: ReadonlySet<string> = new Set(['size', 'first', 'last', 'default']);

/**
 * Steps of one call of a standard filter: the call itself plus the size of its input, because most
 * of them (`sort`, `map`, `where_exp`, `split`, `replace` …) work on all of it.
 */
export function standardFilterSteps(name: string, input: unknown): number {
  if (CONSTANT_TIME_FILTERS.has(name)) return FILTER_STEPS;
  const v = toValue(input);
  if (typeof v === 'string') return FILTER_STEPS + Math.floor(v.length / FILTER_CHARACTERS_PER_STEP);
  if (Array.isArray(v)) return FILTER_STEPS + v.length * FILTER_STEPS_PER_ELEMENT;
  if (v !== null && typeof v === 'object') return FILTER_STEPS + Object.keys(v).length;
  return FILTER_STEPS;
}

/**
 * Steps of one call of a custom filter: they work on text (linear, cheap) or charge their own extra
 * work (`hmac`, `json`) and memory (`stringify`).
 */
export function customFilterSteps(input: unknown): number {
  const v = toValue(input);
  return typeof v === 'string'
    ? FILTER_STEPS + Math.floor(v.length / FILTER_CHARACTERS_PER_STEP)
    : FILTER_STEPS;
}

/** The meter of the render `context` belongs to (every context of ours has one). */
export function meterOf(context: Context): RenderMeter | undefined {
  const limiter: unknown = context.renderLimit;
  return limiter instanceof RenderMeter ? limiter : undefined;
}

/**
 * Checks a loop's range before liquidjs makes its numbers (it makes them all at once, then loops):
 * at most MAX_RANGE_NUMBERS, and `rangeSteps` charged for making them. Its bounds are values
 * without filters (a number or a variable), so evaluating them twice changes nothing.
 */
function* checkRange(collection: unknown, context: Context): Generator<unknown, void, unknown> {
  if (!TypeGuards.isRangeToken(collection)) return;
  const low: unknown = yield evalTokenValue(collection.lhs, context);
  const high: unknown = yield evalTokenValue(collection.rhs, context);
  let size: number;
  try {
    size = rangeSize(low, high);
  } catch (error) {
    throw new RenderLimitError(error instanceof StaticLimitError ? error.message : 'invalid range');
  }
  meterOf(context)?.work(rangeSteps(size));
}

/** `for` with its range checked first. */
export class CheckedForTag extends ForTag {
  override *render(context: Context, emitter: Emitter): Generator<unknown, void | string, Template[]> {
    yield checkRange(this.collection, context);
    return yield* super.render(context, emitter);
  }
}

/** `tablerow` with its range checked first. */
export class CheckedTablerowTag extends TablerowTag {
  override *render(context: Context, emitter: Emitter): Generator<unknown, void, unknown> {
    yield checkRange(this.collection, context);
    yield* super.render(context, emitter);
  }
}
