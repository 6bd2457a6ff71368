import { randomUUID } from 'node:crypto';
import { permissionsFor, type ApplicationType } from '../../core/access/permissions.ts';
import { operatorIn } from '../../core/access/principal.ts';
import type { ApplicationWithKey, Services, Tenant, User } from '../../core/services-contract.ts';

/** The operator (CLI) acting in a tenant: arranges fixtures without going through HTTP. */
export const operator = operatorIn;

export const TEST_ADDRESS = '127.0.0.1';

export interface TenantFixture {
  readonly tenant: Tenant;
  readonly owner: User;
  readonly ownerEmail: string;
  readonly ownerPassword: string;
  /** A management application holding every management permission. */
  readonly admin: ApplicationWithKey;
}

/** The headers of a call with an API key. */
export const withKey = (key: string) => ({ 'svc-api-key': key });

/** The headers of a signed-in user acting in a tenant. */
export const asMember = (token: string, tenantId: string) => ({
  authorization: `Bearer ${token}`,
  'svc-tenant-id': tenantId,
});

/** A tenant with an owner (who can sign in) and a management application with every management permission. */
export async function createTenantFixture(services: Services, name: string): Promise<TenantFixture> {
  const slug = randomUUID().slice(0, 8);
  const ownerEmail = `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${slug}@example.test`;
  const ownerPassword = `pw-${randomUUID()}`;
  const { tenant, owner } = await services.tenants.create(
    { name, ownerEmail, ownerPassword, withApplication: false },
    null,
  );
  if (owner === null) throw new Error('tenants.create returned no owner');
  const admin = await createKey(
    services,
    tenant.id,
    'management',
    permissionsFor('management'),
    `${name} admin`,
  );
  return { tenant, owner, ownerEmail, ownerPassword, admin };
}

/** An application of `type` with exactly `permissions`, created by the operator. */
export async function createKey(
  services: Services,
  tenantId: string,
  type: ApplicationType,
  permissions: readonly string[],
  name = `${type} app`,
): Promise<ApplicationWithKey> {
  return services.applications.create(operator(tenantId), { name, type, permissions });
}

/** A user who belongs to no tenant yet (for non-member sessions). */
export async function createLoneUser(
  services: Services,
): Promise<{ user: User; email: string; password: string }> {
  const email = `lone-${randomUUID().slice(0, 8)}@example.test`;
  const password = `pw-${randomUUID()}`;
  const user = await services.users.create({ email, password });
  return { user, email, password };
}

/** A session token for `email`. */
export async function signIn(services: Services, email: string, password: string): Promise<string> {
  return (await services.auth.signIn(email, password, TEST_ADDRESS)).token;
}

/** A well-formed API key that belongs to nothing. */
export const UNKNOWN_KEY = 'key_UnknownUnknownUnknown1';
