import type { AccessRule } from '../../../core/access/rules.ts';
import type { Application } from '../../../core/services-contract.ts';

/** "#1 /pci/ reveal token:read,token:search (PCI)": one rule on one line. */
export function describeRule(rule: AccessRule): string {
  const description = rule.description === '' ? '' : ` (${rule.description})`;
  return `#${rule.priority} ${rule.container} ${rule.transform} ${rule.permissions.join(',')}${description}`;
}

function stamp(at: string | null, by: string | null): string {
  if (at === null) return '-';
  return by === null ? at : `${at} by ${by}`;
}

/** One application as key/value pairs (`svc app show`, and after `update`). */
export function applicationEntries(app: Application): [string, string][] {
  return [
    ['ID', app.id],
    ['Tenant', app.tenant_id],
    ['Name', app.name],
    ['Type', app.type],
    ['Permissions', app.permissions.length === 0 ? '-' : app.permissions.join(', ')],
    ['Rules', app.rules.length === 0 ? '-' : app.rules.map(describeRule).join('; ')],
    ['Created', stamp(app.created_at, app.created_by)],
    ['Modified', stamp(app.modified_at, app.modified_by)],
  ];
}

export const APPLICATION_COLUMNS = ['ID', 'Name', 'Type', 'Perms', 'Rules', 'Created'] as const;

export function applicationRow(app: Application): string[] {
  return [
    app.id,
    app.name,
    app.type,
    String(app.permissions.length),
    String(app.rules.length),
    app.created_at,
  ];
}
