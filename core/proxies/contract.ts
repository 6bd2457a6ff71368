import type { Principal } from '../access/principal.ts';
import type { Page, PageRequest } from '../common-types.ts';

/** Transform code: a CommonJS module exporting one async function `(req) => ({ body, headers })`. */
export interface ProxyTransform {
  readonly code: string;
}

/** A pre-configured proxy as the API shows it. */
export interface Proxy {
  readonly id: string;
  readonly key: string;
  readonly tenant_id: string;
  readonly name: string;
  readonly destination_url: string;
  readonly request_transform: ProxyTransform | null;
  readonly response_transform: ProxyTransform | null;
  readonly application_id: string | null;
  readonly configuration: Record<string, string>;
  readonly require_auth: boolean;
  readonly created_by: string | null;
  readonly created_at: string;
  readonly modified_by: string | null;
  readonly modified_at: string | null;
}

/** Create and update body (update replaces every field; the key and id never change). */
export interface ProxyInput {
  readonly name: string;
  readonly destination_url: string;
  readonly request_transform?: ProxyTransform | null;
  readonly response_transform?: ProxyTransform | null;
  readonly application?: { readonly id: string } | null;
  readonly configuration?: Record<string, string> | null;
  /** Default true. */
  readonly require_auth?: boolean;
}

export interface ProxyFilter {
  readonly ids?: readonly string[];
  /** `*` matches any run of characters; without `*`, a case-insensitive substring. */
  readonly name?: string;
}

/** Proxy management; every method checks the principal's `proxy:*` permission and audits. */
export interface ProxyService {
  create(principal: Principal, input: ProxyInput): Promise<Proxy>;
  list(principal: Principal, filter: ProxyFilter, page: PageRequest): Promise<Page<Proxy>>;
  get(principal: Principal, id: string): Promise<Proxy>;
  update(principal: Principal, id: string, input: ProxyInput): Promise<Proxy>;
  delete(principal: Principal, id: string): Promise<void>;
}

/** Where a transform failed to compile (1-based), for the 422 on save. */
export interface TransformProblem {
  readonly message: string;
  readonly line: number | null;
  readonly column: number | null;
}

/** Compiles transform code (of `tenant`'s proxy) without running it; null when it is a valid module. */
export type TransformChecker = (
  code: string,
  tenant: string,
) => Promise<TransformProblem | null> | TransformProblem | null;
