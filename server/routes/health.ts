import { Type } from 'typebox';
import type { VaultHandle } from '../../core/vault/types.ts';
import type { VaultServer } from '../types.ts';

const HealthSchema = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('failed')], {
    description: '`failed` (with status 503) once the vault stopped accepting writes, e.g. on a full disk.',
  }),
});

/** What the probe reads: in-memory state only, cheap enough to poll every few seconds. */
export type HealthSource = Pick<VaultHandle, 'failure'>;

/**
 * Liveness for supervisors and the desktop console. Unauthenticated, so it says only whether the
 * vault works: no vault id, no commit counter (they would tell an outsider which vault this is and
 * how busy it is). A vault that failed answers 503 so a supervisor restarts or alerts.
 */
export function registerHealthRoute(app: VaultServer, vault: HealthSource): void {
  app.get(
    '/healthz',
    {
      config: { access: 'public' },
      schema: {
        summary: 'Liveness check',
        tags: ['system'],
        response: { 200: HealthSchema, 503: HealthSchema },
      },
    },
    async (_request, reply) => {
      if (vault.failure) return reply.code(503).send({ status: 'failed' as const });
      return { status: 'ok' as const };
    },
  );
}
