import { Type } from 'typebox';
import type { Services } from '../../core/services-contract.ts';
import { principalOf } from '../http/access.ts';
import { Nullable } from '../http/schemas.ts';
import type { VaultServer } from '../types.ts';

export const ChainVerificationSchema = Type.Object({
  ok: Type.Boolean({ description: 'True when every entry of the chain is intact.' }),
  entries: Type.Integer({ minimum: 0, description: 'Entries checked before the answer was known.' }),
  first_break: Nullable(
    Type.Object({
      seq: Type.Integer({ description: 'Position in the chain of the first link that does not hold.' }),
      entry_id: Nullable(Type.String({ description: 'Null when entries were removed from the end.' })),
      reason: Type.String(),
    }),
  ),
});

/**
 * The caller's tenant's audit chain checked by the same code as `svc logs verify`
 * (core/audit/audit-log.ts). Reading the log is enough to verify it: the answer tells nothing the
 * entries do not.
 */
export function registerLogVerifyRoutes(app: VaultServer, services: Services): void {
  app.get(
    '/logs/verify',
    {
      config: { access: { permission: 'log:read' } },
      schema: {
        summary: "Verify the tenant's audit chain",
        description:
          'Recomputes the hash chain of the tenant’s audit log and reports the first altered, removed or ' +
          'reordered entry.',
        tags: ['logs'],
        response: { 200: ChainVerificationSchema },
      },
    },
    async (request) => {
      const report = await services.logs.verify(principalOf(request).tenantId);
      const broken = report.firstBreak;
      return {
        ok: report.ok,
        entries: report.entries,
        first_break:
          broken === null ? null : { seq: broken.seq, entry_id: broken.entryId, reason: broken.reason },
      };
    },
  );
}
