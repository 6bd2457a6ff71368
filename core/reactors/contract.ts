/**
 * Reactor formulas and reactors as the HTTP routes and the CLI call them (their CRUD and
 * `POST /reactors/{id}/react`). Every method takes the
 * acting Principal, checks it, and audits changes and invocations (entity types `reactorFormula`,
 * `reactor`) in the transaction that does the work; args and results are never audited.
 */
import type { Principal } from '../access/principal.ts';
import type { Page, PageRequest } from '../common-types.ts';
import type { Application } from '../tenancy/contract.ts';

/** Page size cap of the formula and reactor lists. */
export const MAX_REACTOR_PAGE_SIZE = 100;

export const PARAMETER_TYPES = ['string', 'boolean', 'number'] as const;
export type ParameterType = (typeof PARAMETER_TYPES)[number];
export const FORMULA_TYPES = ['official', 'private'] as const;
export type FormulaType = (typeof FORMULA_TYPES)[number];
export const FORMULA_STATUSES = ['verified', 'coming_soon'] as const;
export type FormulaStatus = (typeof FORMULA_STATUSES)[number];

export interface ConfigurationSetting {
  readonly name: string;
  readonly description?: string;
  readonly type: ParameterType;
}

export interface RequestParameter {
  readonly name: string;
  readonly description?: string;
  readonly type: ParameterType;
  readonly optional: boolean;
}

export interface ReactorFormula {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly type: FormulaType;
  readonly status: FormulaStatus;
  readonly icon: string | null;
  readonly code: string;
  readonly configuration: ConfigurationSetting[];
  readonly request_parameters: RequestParameter[];
  readonly created_by: string | null;
  readonly created_at: string;
  readonly modified_by: string | null;
  readonly modified_at: string | null;
}

/** Create and update body of a formula (full replacement); checked again in core. */
export interface ReactorFormulaInput {
  readonly name: unknown;
  readonly description?: unknown;
  readonly type: unknown;
  readonly status?: unknown;
  readonly icon?: unknown;
  readonly code: unknown;
  readonly configuration?: unknown;
  readonly request_parameters?: unknown;
}

/** A configuration value: strings on the wire; booleans and numbers are accepted for their types. */
export type ConfigurationValue = string | number | boolean;

export interface Reactor {
  readonly id: string;
  readonly tenant_id: string;
  readonly name: string;
  readonly formula: ReactorFormula;
  readonly configuration: Record<string, ConfigurationValue>;
  /** Null when the reactor has none (or its application was deleted). */
  readonly application: Application | null;
  readonly created_by: string | null;
  readonly created_at: string;
  readonly modified_by: string | null;
  readonly modified_at: string | null;
}

export interface ReactorInput {
  readonly name: unknown;
  readonly configuration?: unknown;
  /** Create only: `{ id }` or a whole formula object carrying its `id`. */
  readonly formula?: unknown;
  /** `{ id }`, or absent/null for none. */
  readonly application?: unknown;
}

export interface NameFilter {
  readonly ids?: readonly string[];
  /** Wildcard search: `*` any run of characters, otherwise a case-insensitive substring. */
  readonly name?: string;
}

/** Result of an invocation: `{raw, tokens}` or the exact response a CustomHttpResponseError asked for. */
export type ReactResult =
  | { readonly kind: 'response'; readonly body: { raw?: unknown; tokens?: unknown } }
  | {
      readonly kind: 'custom-response';
      readonly status: number;
      readonly headers: Record<string, string>;
      readonly body: unknown;
    };

/**
 * Something wrong with a saved formula that does not stop the save: code that does not compile or
 * export one function is stored as sent and fails at invocation (422); the save says why at once.
 */
export interface FormulaWarning {
  readonly code: 'INVALID_REACTOR_FORMULA';
  /** The text the invocation's 422 will carry: `Invalid Reactor Formula: line <n>, column <m>: <message>`. */
  readonly detail: string;
  /** 1-based line and column in the code; null when the problem has no position (no function exported). */
  readonly line: number | null;
  readonly column: number | null;
}

/** A created or updated formula and what its code check found. */
export interface SavedFormula {
  readonly formula: ReactorFormula;
  readonly warnings: readonly FormulaWarning[];
}

export interface ReactorService {
  /** Code that does not compile is saved too, with a warning (see FormulaWarning). */
  createFormula(principal: Principal, input: ReactorFormulaInput): Promise<SavedFormula>;
  listFormulas(principal: Principal, filter: NameFilter, page: PageRequest): Promise<Page<ReactorFormula>>;
  getFormula(principal: Principal, id: string): Promise<ReactorFormula>;
  updateFormula(principal: Principal, id: string, input: ReactorFormulaInput): Promise<SavedFormula>;
  deleteFormula(principal: Principal, id: string): Promise<void>;

  create(principal: Principal, input: ReactorInput): Promise<Reactor>;
  list(principal: Principal, filter: NameFilter, page: PageRequest): Promise<Page<Reactor>>;
  get(principal: Principal, id: string): Promise<Reactor>;
  update(principal: Principal, id: string, input: ReactorInput): Promise<Reactor>;
  delete(principal: Principal, id: string): Promise<void>;
  /** Detokenize `args` (token:use), validate them, run the formula, tokenize its `tokenize` output. */
  react(principal: Principal, id: string, args: unknown): Promise<ReactResult>;
  /** Stops the sandbox's worker threads. */
  close(): Promise<void>;
}
