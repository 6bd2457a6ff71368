/** A token named in a route path: its parameter, its checks and its 404, and its location. */
import type { preValidationHookHandler } from 'fastify';
import { Type } from 'typebox';
import { VaultError } from '../../core/errors/catalogue.ts';
import { TOKEN_ID_MAX_LENGTH } from '../../core/tokens/index.ts';
import { notFoundAs } from '../http/ids.ts';

export const TokenIdParams = Type.Object({
  id: Type.String({
    minLength: 1,
    maxLength: TOKEN_ID_MAX_LENGTH,
    description: 'Token id, URL-encoded (ids may hold spaces and other characters).',
  }),
});

const NO_SUCH_TOKEN = 'No such token.';

/** A token read or change whose NOT_FOUND answers one detail, whatever the cause. */
export const byId = notFoundAs(NO_SUCH_TOKEN);

/**
 * A path id longer than any token id names nothing: 404 like an unknown id, not 400. A callback
 * hook (no promise per request); code points are counted only when the UTF-16 length could exceed.
 */
export const checkId: preValidationHookHandler = (request, _reply, done) => {
  const { id } = request.params as { id?: string };
  const tooLong =
    id !== undefined && id.length > TOKEN_ID_MAX_LENGTH && Array.from(id).length > TOKEN_ID_MAX_LENGTH;
  done(
    id === undefined || id.length === 0 || tooLong ? new VaultError('NOT_FOUND', NO_SUCH_TOKEN) : undefined,
  );
};

export function tokenLocation(id: string): string {
  return `/tokens/${encodeURIComponent(id)}`;
}
