import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { VaultError } from '../../../core/errors/catalogue.ts';
import type { TenancyOptions, Invitation } from '../../../core/tenancy/contract.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { writeLine } from '../../output/write.ts';

export const INVITATION_COLUMNS = ['ID', 'E-mail', 'Status', 'Expires', 'Created'] as const;

export function invitationRow(invitation: Invitation): string[] {
  return [invitation.id, invitation.email, invitation.status, invitation.expires_at, invitation.created_at];
}

function stamp(at: string | null, by: string | null): string {
  if (at === null) return '-';
  return by === null ? at : `${at} by ${by}`;
}

export function invitationEntries(invitation: Invitation): [string, string][] {
  return [
    ['ID', invitation.id],
    ['Tenant', invitation.tenant_id],
    ['E-mail', invitation.email],
    ['Status', invitation.status],
    ['Expires', invitation.expires_at],
    ['Created', stamp(invitation.created_at, invitation.created_by)],
    ['Modified', stamp(invitation.modified_at, invitation.modified_by)],
  ];
}

/** How the invitation mail left: the .eml file(s) written to the outbox, or the SMTP server. */
export type Delivery =
  { readonly transport: 'smtp' } | { readonly transport: 'outbox'; readonly paths: string[] };

async function emlFiles(dir: string): Promise<Set<string>> {
  try {
    return new Set((await readdir(dir)).filter((name) => name.endsWith('.eml')));
  } catch {
    return new Set();
  }
}

/**
 * Runs a call that sends invitation mail and says where it went. The contract returns only the
 * invitation, so in outbox mode the new `.eml` files are found by looking at the folder before and
 * after (the CLI holds the vault's lock, so no other process of this vault writes there meanwhile).
 */
export async function withDelivery<T>(
  admin: TenancyOptions,
  send: () => Promise<T>,
): Promise<{ result: T; delivery: Delivery }> {
  const { mail } = admin;
  if (mail.kind === 'smtp') return { result: await send(), delivery: { transport: 'smtp' } };
  const before = await emlFiles(mail.dir);
  const result = await send();
  const after = await emlFiles(mail.dir);
  const paths = [...after]
    .filter((name) => !before.has(name))
    .sort()
    .map((name) => path.join(mail.dir, name));
  return { result, delivery: { transport: 'outbox', paths } };
}

/** One line about the mail (never its content: it carries the accept link). */
export function writeDelivery(deps: CliDeps, email: string, delivery: Delivery): void {
  if (delivery.transport === 'smtp') {
    writeLine(deps.stdout, `Mail to ${email}: sent via SMTP`);
    return;
  }
  if (delivery.paths.length === 0) {
    writeLine(deps.stdout, `Mail to ${email}: written to the outbox`);
    return;
  }
  for (const file of delivery.paths) writeLine(deps.stdout, `Mail to ${email}: written to ${file}`);
}

/** The JSON of create and resend: the invitation, plus how its mail left. */
export function invitationWithDelivery(invitation: Invitation, delivery: Delivery): Record<string, unknown> {
  return { ...invitation, mail: delivery };
}

/**
 * The one-time secret from an accept link (`…/invitations/accept?token=…`), a query string, or the
 * bare secret. Errors never repeat the input: it is a credential.
 */
export function secretFromLink(text: string): string {
  const trimmed = text.trim();
  let secret: string | null = trimmed;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) {
    let url: URL;
    try {
      url = new URL(trimmed);
    } catch {
      throw new VaultError('USAGE', 'the invitation link is not a valid URL');
    }
    secret = url.searchParams.get('token');
  } else if (trimmed.startsWith('?') || trimmed.startsWith('token=')) {
    secret = new URLSearchParams(trimmed).get('token');
  }
  if (secret === null || secret.trim() === '')
    throw new VaultError('USAGE', 'the invitation link carries no token');
  return secret.trim();
}

export const INVITATION_ID_HELP = "the invitation's id (see 'svc invitation list')";
