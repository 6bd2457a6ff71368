/**
 * What a failed parse or render says: a message that cannot carry token data. Our own errors
 * (filter reasons, limits, budgets) speak for themselves; anything else a standard filter or the
 * runtime throws is reported generically, because its text could quote the data.
 */
import { LiquidError } from 'liquidjs';
import { VaultError } from '../errors/catalogue.ts';
import { BudgetExceededError } from './budget.ts';
import { FilterError } from './filter-error.ts';
import { RenderLimitError } from './render-meter.ts';
import { StaticLimitError } from './static-cost.ts';

const LIMIT_MESSAGES: Readonly<Record<string, string>> = {
  'memory alloc limit exceeded': 'the expression exceeded the memory limit',
  'parse length limit exceeded': 'the expression is too long',
};

function causeOf(error: unknown): unknown {
  if (error === null || typeof error !== 'object') return undefined;
  const original = (error as { originalError?: unknown }).originalError;
  return original ?? (error as { cause?: unknown }).cause;
}

/** A message for a render failure that cannot carry token data. */
export function describeRenderError(error: unknown): string {
  const seen = new Set<unknown>();
  for (let e: unknown = error; e !== undefined && e !== null && !seen.has(e); e = causeOf(e)) {
    seen.add(e);
    if (e instanceof FilterError) return e.describe();
    if (e instanceof RenderLimitError) return e.message;
    if (e instanceof BudgetExceededError) return e.message;
    if (e instanceof StaticLimitError) return e.message;
    if (e instanceof VaultError) return e.message;
    if (e instanceof Error) {
      for (const [needle, message] of Object.entries(LIMIT_MESSAGES)) {
        if (e.message.startsWith(needle)) return message;
      }
    }
  }
  return 'the expression could not be evaluated';
}

export function describeParseError(error: unknown): string {
  if (error instanceof BudgetExceededError || error instanceof StaticLimitError) return error.message;
  if (error instanceof Error) {
    for (const [needle, message] of Object.entries(LIMIT_MESSAGES)) {
      if (error.message.startsWith(needle)) return message;
    }
    // Parse errors quote only the expression (never data): tag names, filter names, positions.
    if (LiquidError.is(error)) return `invalid expression: ${error.message}`;
  }
  return 'invalid expression';
}

/** Whether `error` is a limit or budget running out (re-thrown as it is, never wrapped). */
export function isLimitError(error: unknown): boolean {
  return (
    error instanceof RenderLimitError ||
    error instanceof BudgetExceededError ||
    (error instanceof Error && Object.keys(LIMIT_MESSAGES).some((m) => error.message.startsWith(m)))
  );
}
