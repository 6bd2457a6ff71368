import { createTenantFixture, type TenantFixture } from './identity.ts';
import { createTestServer, type TestServer, type TestServerOptions } from './test-server.ts';

/** A test server with one tenant, "Tenant A", arranged in it. */
export interface ServerWithTenant {
  readonly server: TestServer;
  readonly a: TenantFixture;
}

/** createTestServer, then "Tenant A" (owner + admin key); the server is disposed if arranging fails. */
export async function createServerWithTenant(options: TestServerOptions = {}): Promise<ServerWithTenant> {
  const server = await createTestServer(options);
  try {
    return { server, a: await createTenantFixture(server.services, 'Tenant A') };
  } catch (error) {
    await server.dispose();
    throw error;
  }
}
