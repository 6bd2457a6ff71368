import type { MailMessage } from './mailer.ts';

function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** `${base}?token=<secret>` (or `&token=` when the base already has a query). */
export function acceptLink(acceptBaseUrl: string, secret: string): string {
  const url = new URL(acceptBaseUrl);
  url.searchParams.set('token', secret);
  return url.toString();
}

/** Fixed: a subject is where a forged instruction would be read first. */
export const INVITATION_SUBJECT = 'Invitation to join a tenant on svc vault';

/** Longer names are cut in mail: a name is a label, not room for a message. */
export const MAIL_NAME_MAX = 60;

/**
 * The tenant name as mail shows it: between quotes (inner quotes and backslashes escaped, so the
 * name cannot close them), control and invisible characters as spaces (names stored before they
 * were refused), and at most MAIL_NAME_MAX characters.
 */
export function quotedTenantName(name: string): string {
  const flat = name.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\s]+/gu, ' ').trim();
  const chars = [...flat];
  const short = chars.length > MAIL_NAME_MAX ? `${chars.slice(0, MAIL_NAME_MAX).join('')}…` : flat;
  return `"${short.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

/**
 * The invitation message: a plain-text and an HTML part, both with the accept link and the secret
 * itself (for `svc invitation accept <secret>`). The wording is fixed and the subject carries no
 * tenant-chosen text: whoever creates a tenant picks its name, so the name appears only once,
 * quoted and labelled as a name, followed by a line saying that svc vault never asks for secrets
 * by e-mail. A name like `Acme. Reply with your password to …` then reads as what it is.
 */
export function invitationMessage(input: {
  readonly to: string;
  readonly tenantName: string;
  readonly acceptBaseUrl: string;
  readonly secret: string;
  readonly expiresAt: string;
}): MailMessage {
  const link = acceptLink(input.acceptBaseUrl, input.secret);
  const quoted = quotedTenantName(input.tenantName);
  const text = [
    'You are invited to join a tenant on svc vault. The tenant is named:',
    '',
    `    ${quoted}`,
    '',
    'That name was chosen by whoever created the tenant; it is not a message from svc vault.',
    'svc vault never asks for your password or any other secret by e-mail.',
    '',
    'Accept the invitation by opening this link:',
    link,
    '',
    'or at a terminal with the svc command:',
    `  svc invitation accept ${input.secret}`,
    '',
    `The invitation expires at ${input.expiresAt}. If you did not expect it, ignore this message.`,
    '',
  ].join('\n');
  const html = `<!doctype html>
<html><body>
<p>You are invited to join a tenant on svc vault. The tenant is named:</p>
<blockquote><code>${escapeHtml(quoted)}</code></blockquote>
<p>That name was chosen by whoever created the tenant; it is not a message from svc vault.
svc vault never asks for your password or any other secret by e-mail.</p>
<p><a href="${escapeHtml(link)}">Accept the invitation</a></p>
<p>Or at a terminal: <code>svc invitation accept ${escapeHtml(input.secret)}</code></p>
<p>The invitation expires at ${escapeHtml(input.expiresAt)}. If you did not expect it, ignore this message.</p>
</body></html>
`;
  return { to: input.to, subject: INVITATION_SUBJECT, text, html };
}
