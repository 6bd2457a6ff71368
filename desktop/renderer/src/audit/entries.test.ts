import { describe, expect, it } from 'vitest';
import { actorLabel, groupPageViews, readMark, viewedSummary, type AuditEntry } from './entries';

let n = 0;
function entry(patch: Partial<AuditEntry>): AuditEntry {
  n += 1;
  return {
    id: `e${n}`,
    tenant_id: 't',
    actor_id: 'u1',
    actor_type: 'user',
    actor_name: null,
    entity_type: 'application',
    entity_id: `x${n}`,
    operation: 'read',
    message: 'Application read',
    created_at: '2026-01-01T00:00:00.000Z',
    entity_ids: null,
    revealed: null,
    ...patch,
  };
}

describe('actorLabel', () => {
  it('names the actor as the server does; without a name, by type and the start of its id', () => {
    expect(actorLabel(entry({ actor_name: 'owner@example.test' }))).toBe('owner@example.test');
    expect(actorLabel(entry({ actor_type: 'application', actor_name: 'Shop' }))).toBe('Shop');
    expect(actorLabel(entry({ actor_type: 'operator', actor_id: null, actor_name: 'operator' }))).toBe(
      'operator',
    );
    expect(actorLabel(entry({ actor_type: 'application', actor_id: '0190f3a2-7c4e' }))).toBe(
      'deleted application 0190f3a2',
    );
    expect(actorLabel(entry({ actor_type: 'user', actor_id: '77aa0c1d-0000' }))).toBe('user 77aa0c1d');
    expect(actorLabel(entry({ actor_type: null, actor_id: null }))).toBe('the vault');
  });
});

describe('readMark', () => {
  it('tells a revealed read from a masked one, and nothing for other entries', () => {
    expect(readMark(entry({ revealed: true }))).toBe('revealed');
    expect(readMark(entry({ revealed: false }))).toBe('masked');
    expect(readMark(entry({ operation: 'update', revealed: null }))).toBeNull();
  });
});

describe('groupPageViews', () => {
  it("folds a member's runs of administrative reads, never token reads or other members' reads", () => {
    const create = entry({ operation: 'create', actor_type: 'application', actor_id: 'a1' });
    const views = [entry({}), entry({ entity_type: 'tenant' }), entry({})];
    const tokenRead = entry({ entity_type: 'token' });
    const other = entry({ actor_id: 'u2' });
    const rows = groupPageViews([create, ...views, tokenRead, other]);
    expect(rows.map((r) => (r.kind === 'entry' ? r.entry.id : r.entries.map((e) => e.id)))).toEqual([
      create.id,
      views.map((v) => v.id),
      tokenRead.id,
      other.id,
    ]);
    const folded = rows[1];
    expect(folded?.kind === 'views' && viewedSummary(folded.entries)).toBe('application ×2, tenant');
  });

  it("starts a new run when another member's views follow", () => {
    const rows = groupPageViews([entry({}), entry({}), entry({ actor_id: 'u2' }), entry({ actor_id: 'u2' })]);
    expect(rows.map((r) => r.kind)).toEqual(['views', 'views']);
  });
});
