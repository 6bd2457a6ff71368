import type { FastifyRequest, preValidationHookHandler } from 'fastify';
import { Type } from 'typebox';
import { VaultError, isVaultError } from '../../core/errors/catalogue.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Pattern of a UUID, its hex digits in either case (a client may write them in upper case). */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** A UUID in a request (query filters); the schema rejects other strings with 400. */
export function uuidSchema(description: string) {
  return Type.String({ format: 'uuid', pattern: UUID_PATTERN, maxLength: 36, description });
}

/** Path parameters `{ id }`, a UUID. A malformed id is turned into 404 by `uuidPathParams`. */
export function idParams(description: string) {
  return Type.Object({ id: Type.String({ format: 'uuid', description }) });
}

/**
 * A path id that is not a UUID names nothing, so it is answered like an id that does not exist:
 * 404 with the same body (`notFoundDetail`: the detail the service gives for a missing resource),
 * not 400. Runs before schema validation (which would say 400) and lower-cases the ids, which are
 * stored in lower case. It runs after the access check, so a caller without the permission still
 * gets 403 and learns nothing.
 */
export function uuidPathParams(
  notFoundDetail: string,
  names: readonly string[] = ['id'],
): preValidationHookHandler {
  return async function checkIds(request: FastifyRequest) {
    const params = request.params as Record<string, string>;
    for (const name of names) {
      const value = params[name];
      if (value === undefined || !isUuid(value)) throw new VaultError('NOT_FOUND', notFoundDetail);
      params[name] = value.toLowerCase();
    }
  };
}

/**
 * Wraps the service calls of an id route so that every 404 says the same `notFoundDetail`, whether
 * the resource does not exist, has expired or belongs to another tenant: a differing detail would
 * tell a caller which ids exist elsewhere.
 */
export function notFoundAs(notFoundDetail: string): <T>(work: Promise<T>) => Promise<T> {
  const rename = (error: unknown): never => {
    if (isVaultError(error, 'NOT_FOUND')) throw new VaultError('NOT_FOUND', notFoundDetail);
    throw error;
  };
  // `catch` rather than an async wrapper: one promise per request instead of two.
  return (work) => work.catch(rename);
}
