import { actorLabel, type AuditEntry } from '../audit/entries';

/** One request through a proxy, as its audit entry tells it (never bodies, paths or values). */
export interface Invocation {
  readonly id: string;
  readonly at: string;
  readonly method: string;
  readonly host: string;
  readonly status: number;
  /** Null for entries written before durations were recorded. */
  readonly durationMs: number | null;
  readonly caller: string;
}

/** `Proxy invoked: POST api.example.com → 200 in 84 ms` (docs/proxies.md, core/proxies/invocation-message.ts). */
const MESSAGE = /^Proxy invoked: (\S+) (\S+) → (\d{3})(?: in (\d+) ms)?$/;

/** The invocation an audit entry records, or null for any other entry. */
export function invocationOf(entry: AuditEntry): Invocation | null {
  if (entry.operation !== 'invoke' || entry.entity_type !== 'proxy') return null;
  const match = MESSAGE.exec(entry.message);
  if (match === null) return null;
  return {
    id: entry.id,
    at: entry.created_at,
    method: match[1]!,
    host: match[2]!,
    status: Number(match[3]),
    durationMs: match[4] === undefined ? null : Number(match[4]),
    caller: actorLabel(entry),
  };
}

/** How a status reads in the traffic view: 2xx fine, 4xx the caller's, 5xx a failure. */
export function statusClass(status: number): 'ok' | 'client-error' | 'server-error' | 'other' {
  if (status >= 200 && status < 300) return 'ok';
  if (status >= 400 && status < 500) return 'client-error';
  if (status >= 500) return 'server-error';
  return 'other';
}
