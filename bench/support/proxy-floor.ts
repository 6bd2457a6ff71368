/**
 * The proxy's share of the engine floor (engine-floor.ts), for the `floor` server of
 * bench/proxy-servers.ts: what a detokenizing proxy must do per request on this engine before and
 * after the bare proxy's forwarding. The caller's key is checked by its keyed hash; each string of
 * the JSON body that is exactly `{{ <token id> }}` is replaced by the token's data (row looked up,
 * MAC checked, data opened); the request is forwarded only once a `use` entry per token is durable;
 * after the answer an `invoke` entry follows without being waited for, as the vault's does.
 */
import { randomBytes } from 'node:crypto';
import { EngineFloor } from './engine-floor.ts';

const EXPRESSION = /^\{\{\s*([^\s{}]+)\s*\}\}$/;
const KEY_HEADER = 'svc-api-key';

export interface ProxyFloor {
  /** What the bench's load needs: the key to present and a token to detokenize. */
  readonly ready: { readonly key: string; readonly tokenId: string };
  /**
   * The body to forward (the key header is taken out of `headers`) once its entries are durable,
   * and what to call once the answer is relayed. Rejects a wrong key or an unknown token.
   */
  readonly prepare: (
    headers: Record<string, string>,
    body: Buffer | null,
  ) => Promise<{ body: Buffer | null; done: () => void }>;
  readonly close: () => Promise<void>;
}

/** Replaces every `{{ id }}` string in `value`; the ids met are pushed to `used`. */
function detokenized(floor: EngineFloor, value: unknown, used: string[]): unknown {
  if (typeof value === 'string') {
    const match = EXPRESSION.exec(value);
    if (match === null) return value;
    const data = floor.reveal(match[1]!);
    if (data === null) throw new Error('unknown token');
    used.push(match[1]!);
    return data;
  }
  if (Array.isArray(value)) return value.map((v) => detokenized(floor, v, used));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = detokenized(floor, v, used);
    return out;
  }
  return value;
}

export async function proxyFloor(): Promise<ProxyFloor> {
  const floor = await EngineFloor.open();
  const key = randomBytes(24).toString('base64url');
  floor.addApiKey(key, 'bench-application');
  const { token, durable } = floor.tokenize('operator', 'card', '4242424242424242');
  await durable;
  return {
    ready: { key, tokenId: token.id },
    async prepare(headers, body) {
      const presented = headers[KEY_HEADER];
      delete headers[KEY_HEADER];
      const application = presented === undefined ? null : floor.application(presented);
      if (application === null) throw new Error('wrong key');
      if (body === null) return { body, done: () => undefined };
      const used: string[] = [];
      const sent = Buffer.from(JSON.stringify(detokenized(floor, JSON.parse(body.toString('utf8')), used)));
      await Promise.all(used.map((id) => floor.audit(application, id, 'use')));
      return {
        body: sent,
        done: () => {
          for (const id of used) void floor.audit(application, id, 'invoke').catch(() => undefined);
        },
      };
    },
    close: () => floor.close(),
  };
}
