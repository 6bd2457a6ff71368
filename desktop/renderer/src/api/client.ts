import { createApiClient, type paths } from '../../../../client/api-client.js';
import { applicationAuth, sessionAuth } from './auth';

export { ApiError, fieldErrorsOf, unwrap, type Problem } from './problem';
export { currentTokenKey, setCredentials, setTokenKey, whenUnauthorized } from './auth';

/**
 * The shared typed client of the API (client/api-client.ts, the CLI's too), on this page's origin:
 * `api` as the signed-in member, `tokenApi` as the application the Tokens screen acts as.
 */
export const api = createApiClient({ baseUrl: window.location.origin });
api.use(sessionAuth);

export const tokenApi = createApiClient({ baseUrl: window.location.origin });
tokenApi.use(applicationAuth);

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Ok<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  responses: { 200: infer R };
}
  ? Json<R>
  : never;

export type Tenant = Ok<'/tenants', 'get'>[number];
export type TokenView = Ok<'/tokens/{id}', 'get'>;
export type Application = Ok<'/applications/{id}', 'get'>;
export type ApplicationRule = Application['rules'][number];
export type NewApplication = paths['/applications']['post']['requestBody']['content']['application/json'];
export type Permission = Ok<'/permissions', 'get'>[number];
export type LogEntry = Ok<'/logs', 'get'>['data'][number];
export type Member = Ok<'/tenants/self/members', 'get'>['data'][number];
export type Invitation = Ok<'/tenants/self/invitations', 'get'>['data'][number];
export type SentInvitation = Ok<'/tenants/self/invitations/{id}/resend', 'post'>;
export type UsageReport = Ok<'/tenants/self/reports/usage', 'get'>;
export type ProxyView = Ok<'/proxies/{id}', 'get'>;
export interface Pagination {
  readonly total_items: number;
  readonly page_number: number;
  readonly page_size: number;
  readonly total_pages: number;
}
