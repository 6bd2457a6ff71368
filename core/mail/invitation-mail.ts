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

/**
 * The invitation message: a plain-text and an HTML part, both with the accept link and the secret
 * itself (for `svc invitation accept <secret>`).
 */
export function invitationMessage(input: {
  readonly to: string;
  readonly tenantName: string;
  readonly acceptBaseUrl: string;
  readonly secret: string;
  readonly expiresAt: string;
}): MailMessage {
  const link = acceptLink(input.acceptBaseUrl, input.secret);
  const text = [
    `You are invited to join the tenant "${input.tenantName}" on svc vault.`,
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
  const name = escapeHtml(input.tenantName);
  const html = `<!doctype html>
<html><body>
<p>You are invited to join the tenant <strong>${name}</strong> on svc vault.</p>
<p><a href="${escapeHtml(link)}">Accept the invitation</a></p>
<p>Or at a terminal: <code>svc invitation accept ${escapeHtml(input.secret)}</code></p>
<p>The invitation expires at ${escapeHtml(input.expiresAt)}. If you did not expect it, ignore this message.</p>
</body></html>
`;
  // No line breaks in a header, whatever the tenant name holds.
  const subjectName = input.tenantName.replace(/[\r\n\t]+/g, ' ');
  return { to: input.to, subject: `You are invited to ${subjectName} on svc vault`, text, html };
}
