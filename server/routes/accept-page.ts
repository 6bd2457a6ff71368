import { createHash } from 'node:crypto';

/**
 * The page an invitation link opens (`GET /invitations/accept?token=…`): a small form that posts
 * JSON to `POST /invitations/accept`. The secret never goes through the server's templates: the
 * page's script reads it from its own address, so the HTML is static (and its script pinned by a
 * CSP hash). The query string is not logged (see http/logging.ts).
 */
const SCRIPT = `
const form = document.getElementById('accept');
const out = document.getElementById('out');
const token = new URLSearchParams(location.search).get('token') || '';
if (!token) out.textContent = 'This link has no invitation secret. Open the link from the e-mail again.';
form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const body = { token };
  for (const name of ['first_name', 'last_name', 'password']) {
    const value = form.elements[name].value;
    if (value !== '') body[name] = value;
  }
  out.textContent = 'Joining…';
  try {
    const response = await fetch(location.pathname, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const result = await response.json();
    if (response.ok) {
      form.hidden = true;
      out.textContent = 'Done: you are now a member of the tenant (' + result.tenant_id + '). Sign in with your e-mail and password.';
    } else {
      out.textContent = result.detail || result.title || 'The invitation could not be accepted.';
    }
  } catch {
    out.textContent = 'The vault could not be reached.';
  }
});
`;

const SCRIPT_HASH = createHash('sha256').update(SCRIPT).digest('base64');

export const ACCEPT_PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  // The address carries the secret: no Referer to anything, no framing, only our own script.
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy':
    `default-src 'none'; script-src 'sha256-${SCRIPT_HASH}'; style-src 'unsafe-inline'; ` +
    "connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
} as const;

export const ACCEPT_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Accept the invitation · svc vault</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 28rem; margin: 3rem auto; padding: 0 1rem; }
label { display: block; margin: .75rem 0 .25rem; }
input { width: 100%; box-sizing: border-box; padding: .4rem; font: inherit; }
button { margin-top: 1rem; padding: .5rem 1rem; font: inherit; }
p.hint { color: #555; font-size: .9rem; }
</style>
</head>
<body>
<h1>Join the tenant</h1>
<p class="hint">New here? Give your name and choose a password. Already have an account? Give only your password.</p>
<form id="accept">
<label for="first_name">First name</label><input id="first_name" name="first_name" autocomplete="given-name" maxlength="200">
<label for="last_name">Last name</label><input id="last_name" name="last_name" autocomplete="family-name" maxlength="200">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="new-password" maxlength="1024" required>
<button type="submit">Accept the invitation</button>
</form>
<p id="out" role="status"></p>
<script>${SCRIPT}</script>
</body>
</html>
`;
