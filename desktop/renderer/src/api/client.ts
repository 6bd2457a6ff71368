import { createApiClient, type components, type paths } from '../../../../client/api-client.js';
import { sessionAuth } from './auth';

export { ApiError, fieldErrorsOf, unwrap, type Problem } from './problem';
export { currentTokenKey, setCredentials, setTokenKey, whenUnauthorized } from './auth';

/**
 * The console's HTTP client: the shared typed client of the API (client/api-client.ts, the CLI's
 * too) on this page's origin, authenticated by api/auth.ts. No other origin is ever called.
 */
export const api = createApiClient({ baseUrl: window.location.origin });
api.use(sessionAuth);

/**
 * The client of the token screens. Token permissions belong to applications, never to members: on
 * token endpoints the server lets the console session act through its token access (its session
 * application, or the application whose key its member gave; `PUT /console/token-access`), so
 * these requests carry no key.
 */
export const tokenApi = api;

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Ok<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  responses: { 200: infer R };
}
  ? Json<R>
  : never;

export type Schemas = components['schemas'];
export type Tenant = Ok<'/tenants', 'get'>[number];
export type TokenView = Ok<'/tokens/{id}', 'get'>;
export type TokenAccess = Ok<'/console/token-access', 'get'>;
export type Application = Ok<'/applications/{id}', 'get'>;
export type ApplicationRule = Application['rules'][number];
export type NewApplication = paths['/applications']['post']['requestBody']['content']['application/json'];
export type Permission = Ok<'/permissions', 'get'>[number];
export type LogEntry = Ok<'/logs', 'get'>['data'][number];
export type Member = Ok<'/tenants/self/members', 'get'>['data'][number];
export type Invitation = Ok<'/tenants/self/invitations', 'get'>['data'][number];
export type SentInvitation = Ok<'/tenants/self/invitations/{id}/resend', 'post'>;
export type UsageReport = Ok<'/tenants/self/reports/usage', 'get'>;
export type VaultHeadroom = Ok<'/vault/headroom', 'get'>;
export type ProxyView = Ok<'/proxies/{id}', 'get'>;
export interface Pagination {
  readonly total_items: number;
  readonly page_number: number;
  readonly page_size: number;
  readonly total_pages: number;
}
