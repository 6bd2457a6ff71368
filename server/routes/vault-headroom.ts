import { VaultHeadroomSchema } from '../../core/storage/headroom.ts';
import type { Services } from '../../core/services-contract.ts';
import type { VaultServer } from '../types.ts';

/**
 * The vault's headroom for the console's overview: sizes only (no path, id or lock holder, which
 * the operator's status route shows), to any caller of a tenant allowed to read the tenant.
 */
export function registerVaultHeadroomRoute(app: VaultServer, services: Services): void {
  app.get(
    '/vault/headroom',
    {
      config: { access: { permission: 'tenant:read' } },
      schema: {
        summary: "The database's size against its limit and the disk's free space against the reserve",
        description:
          'Writes are refused once the database reaches its limit or the free space falls to the reserve; ' +
          'the server logs a warning when either passes `warn_at`. On PostgreSQL no such limit applies: ' +
          '`database.limit_bytes` and `disk` are null.',
        tags: ['system'],
        response: { 200: VaultHeadroomSchema },
      },
    },
    async () => services.vault.headroom(),
  );
}
