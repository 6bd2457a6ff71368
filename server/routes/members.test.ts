import { describe, expect, it } from 'vitest';
import { acceptLinkOf } from '../../core/test-support/smtp-sink.ts';
import { asMember, withKey } from '../test-support/identity.ts';
import { NEW_USER, itAnswersGets, useInvitationsWorld } from '../test-support/invitations.ts';

const world = useInvitationsWorld();
const { invite, accept } = world;

describe('members', () => {
  async function addMember(email: string): Promise<{ id: string; session: string }> {
    const before = world.smtp.received.length;
    expect((await invite(email)).statusCode).toBe(201);
    const { secret } = acceptLinkOf((await world.smtp.message(before + 1)).parsed);
    const accepted = await accept({ token: secret, ...NEW_USER });
    expect(accepted.statusCode, accepted.body).toBe(201);
    const login = await world.server.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email, password: NEW_USER.password },
    });
    return { id: accepted.json<{ id: string }>().id, session: login.json<{ token: string }>().token };
  }

  it("the OWNER cannot be removed (422); a removed member's session loses the tenant at once", async () => {
    const list = await world.server.app.inject({
      method: 'GET',
      url: `/tenants/self/members?user_id=${world.a.owner.id}`,
      headers: withKey(world.a.admin.key),
    });
    const owner = list.json<{ data: Array<{ id: string; role: string }> }>().data;
    expect(owner).toHaveLength(1);
    expect(owner[0]?.role).toBe('OWNER');
    const refused = await world.server.app.inject({
      method: 'DELETE',
      url: `/tenants/self/members/${owner[0]?.id}`,
      headers: withKey(world.a.admin.key),
    });
    expect(refused.statusCode).toBe(422);
    expect(refused.headers['content-type']).toContain('application/problem+json');
    expect(refused.json<{ detail: string }>().detail).toMatch(/owner/i);

    const member = await addMember('gina@example.test');
    const self = () =>
      world.server.app.inject({
        method: 'GET',
        url: '/tenants/self',
        headers: asMember(member.session, world.a.tenant.id),
      });
    expect((await self()).statusCode).toBe(200);
    const removed = await world.server.app.inject({
      method: 'DELETE',
      url: `/tenants/self/members/${member.id}`,
      headers: withKey(world.a.admin.key),
    });
    expect(removed.statusCode).toBe(204);
    expect((await self()).statusCode).toBe(403);
    const again = await world.server.app.inject({
      method: 'DELETE',
      url: `/tenants/self/members/${member.id}`,
      headers: withKey(world.a.admin.key),
    });
    expect(again.statusCode).toBe(404);
    expect(again.json()).toMatchObject({ detail: 'No such member.' });
  });

  it('GET /tenants/self/owner answers the OWNER member; user objects carry picture: null', async () => {
    const owner = await world.server.app.inject({
      method: 'GET',
      url: '/tenants/self/owner',
      headers: withKey(world.a.admin.key),
    });
    expect(owner.statusCode, owner.body).toBe(200);
    expect(owner.json()).toMatchObject({
      role: 'OWNER',
      tenant_id: world.a.tenant.id,
      user: { id: world.a.owner.id, email: world.a.ownerEmail, picture: null },
    });
    const list = await world.server.app.inject({
      method: 'GET',
      url: '/tenants/self/members',
      headers: withKey(world.a.admin.key),
    });
    for (const member of list.json<{ data: Array<{ user: object }> }>().data) {
      expect(member.user).toHaveProperty('picture', null);
    }
  });

  it('PUT /tenants/self/members/{id} transfers ownership; the owner cannot be lowered', async () => {
    const member = await addMember('ivan@example.test');
    const put = (id: string, body: unknown) =>
      world.server.app.inject({
        method: 'PUT',
        url: `/tenants/self/members/${id}`,
        headers: withKey(world.a.admin.key),
        payload: body as Record<string, unknown>,
      });
    const ownerBefore = (
      await world.server.app.inject({
        method: 'GET',
        url: '/tenants/self/owner',
        headers: withKey(world.a.admin.key),
      })
    ).json<{ id: string }>();

    const lowered = await put(ownerBefore.id, { role: 'ADMIN' });
    expect(lowered.statusCode).toBe(422);
    const unknownRole = await put(member.id, { role: 'READER' });
    expect(unknownRole.statusCode).toBe(400);
    expect(unknownRole.json()).toMatchObject({ errors: { role: expect.any(Array) } });
    const same = await put(member.id, { role: 'ADMIN' });
    expect(same.statusCode).toBe(200);
    expect(same.json()).toMatchObject({ id: member.id, role: 'ADMIN' });

    const promoted = await put(member.id, { role: 'OWNER' });
    expect(promoted.statusCode, promoted.body).toBe(200);
    expect(promoted.json()).toMatchObject({ id: member.id, role: 'OWNER', modified_by: world.a.admin.id });
    const owner = await world.server.app.inject({
      method: 'GET',
      url: '/tenants/self/owner',
      headers: withKey(world.a.admin.key),
    });
    expect(owner.json()).toMatchObject({ id: member.id });
    const tenant = await world.server.app.inject({
      method: 'GET',
      url: '/tenants/self',
      headers: withKey(world.a.admin.key),
    });
    expect(tenant.json()).toMatchObject({ owner_id: owner.json<{ user: { id: string } }>().user.id });
    // The previous owner is an ADMIN now, and can be removed like any member.
    const removed = await world.server.app.inject({
      method: 'DELETE',
      url: `/tenants/self/members/${ownerBefore.id}`,
      headers: withKey(world.a.admin.key),
    });
    expect(removed.statusCode).toBe(204);
    // Audited.
    const logs = await world.server.app.inject({
      method: 'GET',
      url: `/logs?entity_type=tenantMember&entity_id=${member.id}`,
      headers: withKey(world.a.admin.key),
    });
    expect(logs.json<{ data: Array<{ message: string }> }>().data.map((e) => e.message)).toContain(
      'Tenant member role changed to OWNER',
    );
    expect((await put('00000000-0000-4000-8000-000000000000', { role: 'ADMIN' })).statusCode).toBe(404);
  });

  it('filters by user_id (repeatable) and pages', async () => {
    await addMember('hal@example.test');
    const all = await world.server.app.inject({
      method: 'GET',
      url: '/tenants/self/members?size=1&page=2',
      headers: withKey(world.a.admin.key),
    });
    expect(all.statusCode).toBe(200);
    expect(all.json()).toMatchObject({
      pagination: { total_items: 2, page_number: 2, page_size: 1, total_pages: 2 },
    });
    expect(all.json<{ data: unknown[] }>().data).toHaveLength(1);
    const both = await world.server.app.inject({
      method: 'GET',
      url: `/tenants/self/members?user_id=${world.a.owner.id}&user_id=${world.a.owner.id.toUpperCase()}`,
      headers: withKey(world.a.admin.key),
    });
    expect(both.json()).toMatchObject({ pagination: { total_items: 1 } });
  });
});

describe('pagination bounds', () => {
  const cases: Array<[string, number]> = [
    ['/tenants/self/members?size=0', 200],
    ['/tenants/self/members?size=51', 400],
    ['/tenants/self/members?size=50', 200],
    ['/tenants/self/members?page=0', 400],
    ['/tenants/self/members?user_id=not-a-uuid', 400],
  ];
  itAnswersGets(world, cases);
});
