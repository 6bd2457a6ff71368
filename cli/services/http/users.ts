import type { User } from '../../../core/services-contract.ts';
import { acknowledged, answer } from '../../connection/answer.ts';
import type { ApiAnswer } from '../../connection/api-types.ts';
import type { CliServices } from '../contract.ts';
import { pathId, type HttpContext } from './context.ts';

/** A user as a member or a tenant's owner carries it. */
type ApiMemberUser = ApiAnswer<'get', '/tenants/self/members'>['data'][number]['user'];

/**
 * A member's or an owner's user as core gives it: the API adds `picture` (always null), and its
 * `email` may be null in general, but a member or owner is made from an e-mail address and has one.
 */
export function userOf({ picture: _picture, ...user }: ApiMemberUser): User {
  return { ...user, email: user.email ?? '' };
}

/** Users through the operator routes: found by e-mail or id, and their passwords set. */
export function httpUsers({ api }: HttpContext): CliServices['users'] {
  return {
    async findByEmail(email) {
      const [user] = await answer(api.GET('/operator/users', { params: { query: { email } } }));
      return user ?? null;
    },
    async get(id) {
      const [user] = await answer(api.GET('/operator/users', { params: { query: { id } } }));
      return user ?? null;
    },
    setPassword: (id, password) =>
      acknowledged(
        api.PUT('/operator/users/{id}/password', {
          params: { path: { id: pathId(id) } },
          body: { password },
        }),
      ),
  };
}
