/**
 * The typed HTTP client of the vault's API, shared by the console and the CLI. Its types are
 * generated from the server's own /openapi.json (`npm run client:generate` writes schema.d.ts), so
 * a route or schema change that a caller does not follow fails the type check. This module imports
 * nothing of the vault's own code: only HTTP crosses from here.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema.js';

export type { components, paths } from './schema.js';

/** The API as one typed client. */
export type ApiClient = Client<paths>;

/** An RFC 9457 problem as the server answers it (`errors`: field → messages). */
export interface Problem {
  readonly type?: string;
  readonly title?: string;
  readonly status?: number;
  readonly detail?: string;
  readonly errors?: Readonly<Record<string, readonly string[]>>;
  readonly [extension: string]: unknown;
}

/** Request headers of the API's credentials; each is sent only when given. */
export interface ApiCredentials {
  /** An application's key (`SVC-API-KEY`). */
  readonly apiKey?: string;
  /** A session token (`Authorization: Bearer`). */
  readonly sessionToken?: string;
  /** The operator credential of the server's current run (`SVC-OPERATOR-KEY`; loopback only). */
  readonly operatorKey?: string;
}

export interface ApiClientOptions {
  /** The server's URL, e.g. `http://127.0.0.1:8080`. */
  readonly baseUrl: string;
  readonly credentials?: ApiCredentials;
  /** The fetch to use (tests); default the global one. */
  readonly fetch?: typeof fetch;
}

/** A client of the server at `baseUrl`, sending the given credentials with every request. */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const { apiKey, sessionToken, operatorKey } = options.credentials ?? {};
  const headers: Record<string, string> = {};
  if (apiKey !== undefined) headers['svc-api-key'] = apiKey;
  if (sessionToken !== undefined) headers.authorization = `Bearer ${sessionToken}`;
  if (operatorKey !== undefined) headers['svc-operator-key'] = operatorKey;
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
}
