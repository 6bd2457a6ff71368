import { isVaultError, VaultError } from '../../../core/errors/catalogue.ts';
import type { Principal } from '../../../core/access/principal.ts';
import type { Tenant } from '../../../core/services-contract.ts';
import { answer } from '../../connection/answer.ts';
import type { ApiAnswer } from '../../connection/api-types.ts';
import type { CliServices } from '../contract.ts';
import { tenantHeaders, type HttpContext } from './context.ts';
import { applicationOf } from './applications.ts';
import { placeAfter } from './member-order.ts';
import { userOf } from './users.ts';

type ApiTenant = ApiAnswer<'get', '/tenants/self'>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A tenant as core gives it: the API leaves `owner_id` out for a tenant without an owner; core says null. */
export function tenantOf(body: ApiTenant): Tenant {
  return placeAfter({ ...body, owner_id: body.owner_id ?? null }, 'id', ['owner_id']);
}

/** Tenants over HTTP: the operator sees every tenant, a member theirs, an API key its own. */
export function httpTenants(http: HttpContext): CliServices['tenants'] {
  const { api } = http;

  /**
   * The tenant of the calling key. A key without `tenant:read` (a private key, say) still knows its
   * tenant's id from "who am I"; its name is then not ours to read, and the id stands in for it.
   */
  const ownTenant = async (): Promise<Tenant> => {
    try {
      return tenantOf(await answer(api.GET('/tenants/self', {})));
    } catch (error) {
      if (!isVaultError(error, 'FORBIDDEN')) throw error;
    }
    const self = await answer(api.GET('/applications/key', {}));
    return {
      id: self.tenant_id,
      owner_id: null,
      name: self.tenant_id,
      settings: {},
      created_by: null,
      created_at: self.created_at,
      modified_by: null,
      modified_at: null,
    };
  };

  return {
    async create(input) {
      const created = await answer(
        api.POST('/operator/tenants', {
          body: {
            name: input.name,
            ...(input.ownerEmail === undefined ? {} : { owner_email: input.ownerEmail }),
            ...(input.ownerPassword === undefined ? {} : { owner_password: input.ownerPassword }),
            ...(input.withApplication === undefined ? {} : { with_application: input.withApplication }),
          },
        }),
      );
      return {
        tenant: tenantOf(created.tenant),
        owner: created.owner === null ? null : userOf(created.owner),
        application: created.application === null ? null : applicationOf(created.application),
      };
    },
    async get(principal: Principal) {
      // No tenant has an id that is not a UUID; asked by name, the answer is "not found" (as in core).
      if (!UUID.test(principal.tenantId)) throw new VaultError('NOT_FOUND');
      const tenant = tenantOf(await answer(api.GET('/tenants/self', tenantHeaders(http, principal))));
      // A key answers for its own tenant whatever was asked: another tenant is not found.
      if (tenant.id !== principal.tenantId.toLowerCase()) throw new VaultError('NOT_FOUND');
      return tenant;
    },
    async listAll() {
      if (http.authority === 'operator')
        return (await answer(api.GET('/operator/tenants', {}))).map(tenantOf);
      // A member sees the tenants they belong to.
      if (http.authority === 'session') return (await answer(api.GET('/tenants', {}))).map(tenantOf);
      return [await ownTenant()];
    },
  };
}
