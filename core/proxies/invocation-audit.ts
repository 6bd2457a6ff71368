/**
 * The one audit entry of each proxy invocation. It joins the vault's read-audit batch
 * (core/tokens/read-audit.ts), the group commit that also writes the detokenizer's `use` entries:
 * one transaction and fsync for everything concurrent requests recorded. The response does not
 * wait for this entry (the `use` entries were durable before anything was forwarded), so it starts
 * no commit of its own: it rides with the next request's `use` entries, or is written within
 * UNAWAITED_ENTRY_DELAY_MS. `settled()` writes every entry recorded so far and resolves once they
 * are written (tests, shutdown).
 */
import { readAuditOf } from '../tokens/read-audit.ts';
import type { VaultHandle } from '../vault/types.ts';
import { proxyInvocationMessage } from './invocation-message.ts';
import { EPHEMERAL_PROXY_ID, PROXY_ENTITY } from './proxy-store.ts';
import type { Route } from './proxy-route.ts';

export class InvocationAudit {
  private readonly reads;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly vault: VaultHandle) {
    this.reads = readAuditOf(vault);
  }

  /** Queues the entry of an invocation on `r` that answered `status`; never throws. */
  record(r: Route, host: string, method: string, status: number, startedAt: number): void {
    const durationMs = this.vault.clock.now().getTime() - startedAt;
    const settle = (): void => void this.inFlight.delete(written);
    const written: Promise<void> = this.reads
      .recordLater({
        entries: [
          {
            principal: r.actor,
            event: {
              tenantId: r.tenantId,
              entityType: PROXY_ENTITY,
              entityId: r.proxy?.id ?? EPHEMERAL_PROXY_ID,
              operation: 'invoke',
              message: proxyInvocationMessage({ method, host, status, durationMs }),
            },
          },
        ],
      })
      // A lost entry (a tenant deleted meanwhile, a failed disk) cannot change an answer already sent.
      .then(settle, settle);
    this.inFlight.add(written);
  }

  /** Resolves when every queued invocation audit entry is written. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) {
      await this.reads.flush();
      await Promise.all(this.inFlight);
    }
  }
}
