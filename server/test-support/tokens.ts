import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { AccessRule, Transform } from '../../core/access/rules.ts';
import type { ApplicationWithKey, Services } from '../../core/services-contract.ts';
import type { VaultServer } from '../types.ts';
import { ALL_TOKEN_PERMISSIONS } from '../../core/test-support/token-kit.ts';
import { operator } from './identity.ts';
import { createServerWithTenant, type ServerWithTenant } from './tenant-server.ts';
import type { TestServer } from './test-server.ts';

/** Every token permission, for keys that may do anything with tokens. */
export const TOKEN_PERMISSIONS: readonly string[] = ALL_TOKEN_PERMISSIONS;

export const MERGE_PATCH = 'application/merge-patch+json';

/** A token as the API returns it, for reading responses in tests. */
export interface TokenJson {
  id: string;
  tenant_id: string;
  type: string;
  data?: unknown;
  mask?: unknown;
  fingerprint?: string;
  fingerprint_expression?: string;
  containers: string[];
  privacy?: { classification: string | null; impact_level: string | null; restriction_policy: string };
  metadata?: Record<string, string>;
  search_indexes?: string[];
  created_by?: string | null;
  created_at?: string;
  modified_by?: string | null;
  modified_at?: string | null;
  expires_at?: string | null;
}

export interface TokenPageJson {
  pagination: { total_items: number; page_number: number; page_size: number; total_pages: number };
  data: TokenJson[];
}

export function rule(
  container: string,
  permissions: readonly string[],
  transform: Transform,
  priority = 1,
): AccessRule {
  return { description: '', priority, container, permissions: [...permissions], transform };
}

/** A private application with these permissions and rules, created by the operator. */
export function privateKey(
  services: Services,
  tenantId: string,
  grants: { permissions?: readonly string[]; rules?: readonly AccessRule[] },
  name = 'private app',
): Promise<ApplicationWithKey> {
  return services.applications.create(operator(tenantId), {
    name,
    type: 'private',
    permissions: grants.permissions ?? [],
    rules: grants.rules ?? [],
  });
}

/** Every token permission, reads and searches revealed: a tenant's own backend. */
export const REVEALING_GRANTS = {
  permissions: TOKEN_PERMISSIONS,
  rules: [rule('/', ['token:read', 'token:search'], 'reveal')],
} as const;

/** A client over a new private key with these grants (every token permission unless told). */
export async function tokenClientIn(
  server: TestServer,
  tenantId: string,
  grants: Parameters<typeof privateKey>[2] = { permissions: TOKEN_PERMISSIONS },
  name?: string,
): Promise<TokenClient> {
  const app = await privateKey(server.services, tenantId, grants, name);
  return new TokenClient(server.app, app.key);
}

/** A test server with "Tenant A" and a token client in it over every token permission. */
export interface TokenServer extends ServerWithTenant {
  readonly client: TokenClient;
}

/** createServerWithTenant, then tokenClientIn "Tenant A"; the server is disposed if arranging fails. */
export async function createTokenServer(): Promise<TokenServer> {
  const { server, a } = await createServerWithTenant();
  try {
    return { server, a, client: await tokenClientIn(server, a.tenant.id) };
  } catch (error) {
    await server.dispose();
    throw error;
  }
}

/** `/tokens/<id>` with the id URL-encoded. */
export function tokenUrl(id: string): string {
  return `/tokens/${encodeURIComponent(id)}`;
}

/** Requests with one API key. */
export class TokenClient {
  constructor(
    private readonly app: VaultServer,
    readonly key: string,
  ) {}

  inject(options: InjectOptions): Promise<LightMyRequestResponse> {
    return this.app.inject({ ...options, headers: { 'svc-api-key': this.key, ...options.headers } });
  }

  create(body: unknown): Promise<LightMyRequestResponse> {
    return this.inject({ method: 'POST', url: '/tokens', payload: body as InjectOptions['payload'] });
  }

  tokenize(body: unknown): Promise<LightMyRequestResponse> {
    return this.inject({
      method: 'POST',
      url: '/tokenize',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
  }

  get(id: string): Promise<LightMyRequestResponse> {
    return this.inject({ method: 'GET', url: tokenUrl(id) });
  }

  list(query = ''): Promise<LightMyRequestResponse> {
    return this.inject({ method: 'GET', url: `/tokens${query === '' ? '' : `?${query}`}` });
  }

  update(id: string, patch: unknown, contentType = MERGE_PATCH): Promise<LightMyRequestResponse> {
    return this.inject({
      method: 'PATCH',
      url: tokenUrl(id),
      headers: { 'content-type': contentType },
      payload: JSON.stringify(patch),
    });
  }

  delete(id: string): Promise<LightMyRequestResponse> {
    return this.inject({ method: 'DELETE', url: tokenUrl(id) });
  }

  search(body: unknown): Promise<LightMyRequestResponse> {
    return this.inject({ method: 'POST', url: '/tokens/search', payload: body as InjectOptions['payload'] });
  }
}

/** The token of a successful response, failing with the body otherwise. */
export function tokenOf(response: LightMyRequestResponse, status = 200): TokenJson {
  if (response.statusCode !== status) {
    throw new Error(`expected ${status}, got ${response.statusCode}: ${response.body}`);
  }
  return response.json() as TokenJson;
}

export function pageOf(response: LightMyRequestResponse): TokenPageJson {
  if (response.statusCode !== 200)
    throw new Error(`expected 200, got ${response.statusCode}: ${response.body}`);
  return response.json() as TokenPageJson;
}
