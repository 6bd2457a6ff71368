/**
 * Value types that several service contracts share. A leaf module: it imports nothing, so the
 * contracts (core/services-contract.ts, core/tenancy/contract.ts, core/tokens/contract.ts, …) can
 * all use them without importing one another.
 */

/** Items per page when a list request gives no size (the API, the CLI and the reactor bridge). */
export const DEFAULT_PAGE_SIZE = 20;

/** Which page of a list: `page` from 1, `size` items per page. */
export interface PageRequest {
  readonly page: number;
  readonly size: number;
}

/** One page of a list and how many items the whole list holds. */
export interface Page<T> {
  readonly total: number;
  readonly items: T[];
}

/** A person with an account (never their password hash). */
export interface User {
  readonly id: string;
  readonly email: string;
  readonly first_name: string | null;
  readonly last_name: string | null;
}

/**
 * A value at once, or the promise of it when getting it has to wait. Functions with a synchronous
 * fast path return this: hot callers await only a promise (`x instanceof Promise ? await x : x`),
 * any other caller simply awaits.
 */
export type NowOrLater<T> = T | Promise<T>;
