import { Type } from 'typebox';
import type { VaultHandle } from '../../core/vault/types.ts';
import type { VaultServer } from '../types.ts';

const HealthSchema = Type.Object({
  status: Type.Literal('ok'),
  vault: Type.Object({
    id: Type.String(),
    sequence: Type.Integer({ description: 'Number of the last committed transaction.' }),
  }),
});

/**
 * What the probe reads: in-memory fields only. `status()` re-reads the file header and scans the
 * journal, too much for something polled every few seconds.
 */
export type HealthSource = Pick<VaultHandle, 'id' | 'sequence'>;

/** Liveness for supervisors and the desktop console; unauthenticated, so it shows no secrets. */
export function registerHealthRoute(app: VaultServer, vault: HealthSource): void {
  app.get(
    '/healthz',
    {
      config: { access: 'public' },
      schema: {
        summary: 'Liveness check',
        tags: ['system'],
        response: { 200: HealthSchema },
      },
    },
    async () => {
      return { status: 'ok' as const, vault: { id: vault.id, sequence: vault.sequence } };
    },
  );
}
