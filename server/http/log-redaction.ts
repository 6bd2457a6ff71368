/**
 * pino applies the redaction of wildcard paths (`*.headers["authorization"]`) to every value it
 * serializes: each key of a logged object, each child binding, the message. @pinojs/redact then
 * re-parses every path on each call, so a request's completion line (five numbers and strings)
 * cost more than everything else it logs. A path can only reach inside an object: a string,
 * number or boolean comes out of the redactor as its plain serialization. So primitives are
 * serialized directly here, and every object still goes through the redactor unchanged.
 */
import type { Logger } from 'pino';
import { pino } from 'pino';

type Stringifier = (value: unknown, ...rest: unknown[]) => string | undefined;
type Serialize = (value: unknown, safe: unknown) => string;

const { stringifiersSym, stringifySym, stringifySafeSym } = pino.symbols;

/** `logger` (changed in place) with its redacting stringifiers skipped for primitive values. */
export function redactingObjectsOnly<L extends Logger>(logger: L): L {
  const fields = logger as unknown as Record<symbol, unknown>;
  const stringifiers = fields[stringifiersSym] as Record<string | symbol, Stringifier> | undefined;
  const serialize = fields[stringifySym] as Serialize | undefined;
  const safe = fields[stringifySafeSym];
  // Another pino might keep them elsewhere: then its redaction is left exactly as it is.
  if (stringifiers === undefined || typeof serialize !== 'function') return logger;
  const wrapped: Record<string | symbol, Stringifier> = Object.create(null) as Record<
    string | symbol,
    Stringifier
  >;
  for (const key of Reflect.ownKeys(stringifiers)) {
    const redact = stringifiers[key]!;
    wrapped[key] = (value, ...rest) =>
      value !== null && (typeof value === 'object' || typeof value === 'function')
        ? redact(value, ...rest)
        : serialize(value, safe);
  }
  fields[stringifiersSym] = wrapped;
  return logger;
}
