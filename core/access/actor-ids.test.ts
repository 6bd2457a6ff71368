import { describe, expect, it } from 'vitest';
import { assertMaySearchActor, shownActorId, withShownActors } from './actor-ids.ts';
import type { Principal } from './principal.ts';

const key = (permissions: string[], applicationId = 'me'): Principal => ({
  kind: 'application',
  tenantId: 't',
  applicationId,
  applicationType: permissions.some((p) => p.startsWith('token:')) ? 'private' : 'management',
  permissions,
  rules: [],
});

describe('actor ids (created_by, modified_by)', () => {
  it.each<[string, Principal, string | null]>([
    ['a token reader sees no other actor', key(['token:read']), null],
    ['a proxy reader without application:read neither', key(['proxy:read']), null],
    ['a key that may read applications sees it', key(['application:read']), 'backend'],
    [
      'a member sees it',
      { kind: 'user', tenantId: 't', userId: 'u', sessionId: 's', role: 'ADMIN' },
      'backend',
    ],
    ['the operator sees it', { kind: 'operator', tenantId: 't' }, 'backend'],
  ])('%s', (_name, principal, expected) => {
    expect(shownActorId(principal, 'backend')).toBe(expected);
  });

  it("shows a caller its own id, and null stays null (the operator's actions)", () => {
    expect(shownActorId(key(['token:read']), 'me')).toBe('me');
    expect(shownActorId(key(['token:read']), null)).toBeNull();
  });

  it('rewrites only the fields a record has', () => {
    const reader = key(['token:read']);
    expect(withShownActors(reader, { id: 'x', created_by: 'backend', modified_by: 'me' })).toEqual({
      id: 'x',
      created_by: null,
      modified_by: 'me',
    });
    const without: { id: string; created_by?: string | null } = { id: 'x' };
    expect(withShownActors(reader, without)).toEqual({ id: 'x' });
  });

  it('searching by an actor id follows the same rule', () => {
    expect(() => assertMaySearchActor(key(['token:search']), 'created_by', 'backend')).toThrow(
      /application:read/,
    );
    expect(() => assertMaySearchActor(key(['token:search']), 'created_by', 'me')).not.toThrow();
    expect(() => assertMaySearchActor({ kind: 'operator', tenantId: 't' }, 'modified_by', 'x')).not.toThrow();
  });
});
