/**
 * Expression budgets: the total work every expression evaluated for one token, or for one request,
 * may do together. A single expression is also bounded on its own (engine.ts), but a request can
 * carry many expressions (a mask of many leaves, a tokenize of many tokens, a list page of many
 * masked tokens), so each render charges its work to a chain of shared budgets as well, and stops
 * as soon as any of them is spent.
 *
 * Three measures, each with a limit:
 * - `steps`: template nodes visited (every output, tag and loop iteration), plus the extra weight of
 *   filter calls (`FILTER_STEPS` each, more for `hmac` and `json`, see filters.ts). Deterministic:
 *   the same expression over the same data always costs the same, so a cost checked when a mask is
 *   stored is the cost of every later read.
 * - `memory`: the allocation units liquidjs and our filters charge (string and array sizes, rendered
 *   text, copies of whole values). Deterministic too.
 * - `ms`: time spent inside renders (not the time between them, e.g. waiting for the database):
 *   wall-clock time, or the process's CPU time when that is smaller (engine.ts, RenderMeter), so
 *   waiting for a core on a loaded machine does not count. A backstop only: a garbage-collection
 *   pause must not turn a valid request into a 400, so the step and memory limits are the bounds
 *   that matter and these limits are generous.
 *
 * A request's budget is ambient (AsyncLocalStorage): the HTTP edge opens one per request
 * (`runWithRequestBudget`) and every render in that request charges it, wherever in core it runs.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface BudgetLimits {
  readonly steps: number;
  readonly memory: number;
  readonly ms: number;
}

/** Extra steps charged for every filter call: a call costs about as much as three template nodes. */
export const FILTER_STEPS = 3;

/**
 * All expressions of one token written (mask dry-run, fingerprint, search indexes, alias id). The
 * memory limit leaves room for the default `{{ data | stringify }}` fingerprint of data that fills
 * a 1 MiB body (its copy and its output are each charged).
 */
export const TOKEN_EXPRESSION_LIMITS: BudgetLimits = Object.freeze({
  steps: 20_000,
  memory: 3_000_000,
  ms: 500,
});

/**
 * One evaluation of a stored mask: when the token is written (a dry run over the data being
 * stored) and on every read. A mask that does not fit is refused when stored, so reading a token
 * never costs more than this, and a full list page (100 tokens) fits one request budget.
 */
export const STORED_MASK_LIMITS: BudgetLimits = Object.freeze({
  steps: 500,
  memory: 20_000,
  ms: 1000,
});

/**
 * Every expression evaluated while serving one request, all tokens together. The step limit keeps
 * them within the event loop's stall target on an idle core (`bench/expressions.ts` measures the
 * worst stall under attack); the time limit is far above that because on a loaded machine (and
 * before the JIT has warmed up) an honest 1000-token tokenize takes many times longer, and that
 * must not become a 400.
 */
export const REQUEST_EXPRESSION_LIMITS: BudgetLimits = Object.freeze({
  steps: 50_000,
  memory: 4_000_000,
  ms: 1000,
});

/** Thrown when a render exhausts a budget; the message names the budget, never data. */
export class BudgetExceededError extends Error {
  override readonly name = 'BudgetExceededError';
}

/** A shared budget; `scope` names it in messages ("the token's expressions", "this request's …"). */
export class ExpressionBudget {
  private stepsUsed = 0;
  private memoryUsed = 0;
  private msUsed = 0;
  private refusal: string | undefined;

  constructor(
    readonly limits: BudgetLimits,
    readonly scope: string,
    readonly parent?: ExpressionBudget,
  ) {}

  /** Set once a charge was refused: every later render under this budget fails at once. */
  get exhausted(): string | undefined {
    return this.refusal;
  }

  private refuse(message: string): never {
    this.refusal = message;
    throw new BudgetExceededError(message);
  }

  /** Throws the first refusal again, if there was one. */
  assertAvailable(): void {
    if (this.refusal !== undefined) throw new BudgetExceededError(this.refusal);
  }

  get used(): { readonly steps: number; readonly memory: number; readonly ms: number } {
    return { steps: this.stepsUsed, memory: this.memoryUsed, ms: this.msUsed };
  }

  /** This budget and its ancestors, innermost first. */
  chain(): ExpressionBudget[] {
    return [this, ...(this.parent?.chain() ?? [])];
  }

  /** Books `steps`, or throws without booking them when they do not fit. */
  chargeSteps(steps: number): void {
    this.assertAvailable();
    if (this.stepsUsed + steps > this.limits.steps) this.refuseSteps();
    this.stepsUsed += steps;
  }

  /**
   * Refuses at once, as if the render had run out, when a render known to cost at least `cost`
   * (static-cost.ts) cannot fit what is left: nothing is booked, the render does not start, and
   * the budget stays refused like after any other refusal.
   */
  assertAffords(cost: { readonly steps: number; readonly memory: number }): void {
    this.assertAvailable();
    if (this.stepsUsed + cost.steps > this.limits.steps) this.refuseSteps();
    if (this.memoryUsed + cost.memory > this.limits.memory) this.refuseMemory();
  }

  private refuseSteps(): never {
    return this.refuse(`${this.scope} exceeded their total of ${this.limits.steps} steps`);
  }

  private refuseMemory(): never {
    return this.refuse(`${this.scope} exceeded their total memory of ${this.limits.memory} units`);
  }

  /** Books `units` of memory, or throws without booking them (the allocation does not happen). */
  chargeMemory(units: number): void {
    this.assertAvailable();
    if (this.memoryUsed + units > this.limits.memory) this.refuseMemory();
    this.memoryUsed += units;
  }

  /** Whether `runningMs` (the current render so far) fits the time left, without refusing. */
  fitsTime(runningMs: number): boolean {
    return this.msUsed + runningMs <= this.limits.ms;
  }

  /** Fails when `runningMs` (the current render so far) would take the budget past its time limit. */
  checkTime(runningMs: number): void {
    if (this.msUsed + runningMs > this.limits.ms) {
      this.refuse(`${this.scope} exceeded their total time of ${this.limits.ms} ms`);
    }
  }

  /** Books a finished render's time. */
  addTime(ms: number): void {
    this.msUsed += ms;
  }
}

const ambient = new AsyncLocalStorage<ExpressionBudget>();

/** A fresh request budget. */
export function requestBudget(): ExpressionBudget {
  return new ExpressionBudget(REQUEST_EXPRESSION_LIMITS, "this request's expressions");
}

/** Runs `fn` (and everything it starts) with `budget` as the request's budget. */
export function runWithRequestBudget<T>(budget: ExpressionBudget, fn: () => T): T {
  return ambient.run(budget, fn);
}

/**
 * Runs `fn` with no request budget, whatever context it is called from: for work done on behalf
 * of several requests at once, which must not charge (or be refused by) any one caller's budget.
 */
export function runOutsideRequestBudget<T>(fn: () => T): T {
  return ambient.exit(fn);
}

/** The budget of the request being served, if any. */
export function currentRequestBudget(): ExpressionBudget | undefined {
  return ambient.getStore();
}

/** A token's budget, under the current request's. */
export function tokenBudget(): ExpressionBudget {
  return new ExpressionBudget(TOKEN_EXPRESSION_LIMITS, "the token's expressions", currentRequestBudget());
}

/** The budget of one stored-mask evaluation, under `parent` (default: the current request's). */
export function storedMaskBudget(
  parent: ExpressionBudget | undefined = currentRequestBudget(),
): ExpressionBudget {
  return new ExpressionBudget(STORED_MASK_LIMITS, "the mask's expressions", parent);
}
