/**
 * Tokenize's share of the engine floor (engine-floor.ts), for the `tokenize-floor` server of
 * bench/support/serve.ts: a payload walked as the tokenize endpoint walks it (an object holding
 * `type` and `data` becomes a token of that type, any other primitive a generic token, objects and
 * arrays member by member), every token's rows in the next group, the answer once they are durable.
 */
import type { EngineFloor } from './engine-floor.ts';

function walked(floor: EngineFloor, actor: string, value: unknown, durable: Promise<void>[]): unknown {
  if (Array.isArray(value)) return value.map((v) => walked(floor, actor, v, durable));
  if (value !== null && typeof value === 'object') {
    const fields = value as Record<string, unknown>;
    if ('type' in fields && 'data' in fields) {
      const made = floor.tokenize(actor, String(fields.type), String(fields.data));
      durable.push(made.durable);
      return made.token;
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(fields)) out[k] = walked(floor, actor, v, durable);
    return out;
  }
  const made = floor.tokenize(actor, 'token', String(value));
  durable.push(made.durable);
  return made.token.id;
}

/** The payload with its values replaced by tokens, once every token's rows are durable. */
export async function tokenizeOnFloor(floor: EngineFloor, actor: string, payload: unknown): Promise<unknown> {
  const durable: Promise<void>[] = [];
  const answer = walked(floor, actor, payload, durable);
  await Promise.all(durable);
  return answer;
}
