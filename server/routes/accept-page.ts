import { createHash } from 'node:crypto';

/**
 * The page an invitation link opens (`GET /invitations/accept?token=…`): a small form that posts
 * JSON to `POST /invitations/accept`, in the console's look (its colours, card, fields and
 * buttons), ending with a link to sign in to the console. The secret never goes through the
 * server's templates: the page's script reads it from its own address, so the HTML is static (its
 * script and style pinned by CSP hashes). The query string is not logged (see http/logging.ts).
 */
const SCRIPT = `
const form = document.getElementById('accept');
const problem = document.getElementById('problem');
const status = document.getElementById('status');
const token = new URLSearchParams(location.search).get('token') || '';
const FIELDS = ['first_name', 'last_name', 'password'];
function show(element, text) {
  element.textContent = text;
  element.hidden = text === '';
}
function clearErrors() {
  show(problem, '');
  for (const name of FIELDS) {
    show(document.getElementById(name + '-errors'), '');
    form.elements[name].removeAttribute('aria-invalid');
  }
}
if (!token) show(problem, 'This link has no invitation secret. Open the link from the e-mail again.');
form.addEventListener('submit', async (event) => {
  event.preventDefault();
  clearErrors();
  const body = { token };
  for (const name of FIELDS) {
    const value = form.elements[name].value;
    if (value !== '') body[name] = value;
  }
  status.textContent = 'Joining…';
  try {
    const response = await fetch(location.pathname, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const result = await response.json();
    status.textContent = '';
    if (response.ok) {
      form.hidden = true;
      document.getElementById('joined-email').textContent = result.user.email;
      document.getElementById('joined').hidden = false;
      document.getElementById('sign-in').focus();
      return;
    }
    const errors = result.errors || {};
    for (const name of FIELDS) {
      if (!errors[name]) continue;
      show(document.getElementById(name + '-errors'), errors[name].join(' '));
      form.elements[name].setAttribute('aria-invalid', 'true');
    }
    show(problem, result.detail || result.title || 'The invitation could not be accepted.');
  } catch {
    status.textContent = '';
    show(problem, 'The vault could not be reached.');
  }
});
`;

/** The console's palette and components (desktop/renderer/src/styles.css), for this one page. */
const STYLE = `
:root { --bg: #f6f7f9; --panel: #fff; --ink: #1b1f24; --muted: #57606a; --line: #d0d7de;
  --accent: #0b5cad; --danger: #b42318;
  font: 15px/1.5 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; color: var(--ink); background: var(--bg); }
* { box-sizing: border-box; }
body { margin: 0; }
.topbar { padding: .6rem 1rem; background: #102a43; color: #fff; font-weight: 700; }
main { max-width: 440px; margin: 3rem auto; padding: 0 1rem; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 1rem 1.25rem; }
h1 { font-size: 1.3rem; margin: 0 0 .75rem; }
.hint { color: var(--muted); font-size: .9rem; }
.field { margin-bottom: .8rem; }
.field label { display: block; font-weight: 600; margin-bottom: .25rem; }
input { font: inherit; width: 100%; padding: .4rem .5rem; border: 1px solid var(--line); border-radius: 6px; }
input[aria-invalid='true'] { border-color: var(--danger); }
.field-errors { color: var(--danger); font-size: .9rem; margin: .25rem 0 0; }
.problem { border: 1px solid var(--danger); background: #fdecea; color: #7a1a12; border-radius: 6px; padding: .6rem .8rem; }
button, a.button { font: inherit; display: inline-block; padding: .4rem .8rem; border-radius: 6px; cursor: pointer;
  background: var(--accent); border: 1px solid var(--accent); color: #fff; text-decoration: none; }
:focus-visible { outline: 3px solid #f5a623; outline-offset: 2px; }
`;

const hash = (text: string) => createHash('sha256').update(text).digest('base64');

export const ACCEPT_PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  // The address carries the secret: no Referer to anything, no framing, only our own script.
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy':
    `default-src 'none'; script-src 'sha256-${hash(SCRIPT)}'; style-src 'sha256-${hash(STYLE)}'; ` +
    "connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
} as const;

export const ACCEPT_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Accept the invitation · svc vault</title>
<style>${STYLE}</style>
</head>
<body>
<header class="topbar">svc vault</header>
<main>
<form id="accept" class="card" novalidate aria-labelledby="accept-title">
<h1 id="accept-title">Join the tenant</h1>
<p class="hint">New here? Give your name and choose a password. Already have an account? Give only your password.</p>
<div class="field"><label for="first_name">First name</label><input id="first_name" name="first_name" autocomplete="given-name" maxlength="200" aria-describedby="first_name-errors"><p id="first_name-errors" class="field-errors" hidden></p></div>
<div class="field"><label for="last_name">Last name</label><input id="last_name" name="last_name" autocomplete="family-name" maxlength="200" aria-describedby="last_name-errors"><p id="last_name-errors" class="field-errors" hidden></p></div>
<div class="field"><label for="password">Password</label><input id="password" name="password" type="password" autocomplete="new-password" maxlength="1024" required aria-describedby="password-errors"><p id="password-errors" class="field-errors" hidden></p></div>
<p id="problem" class="problem" role="alert" hidden></p>
<button type="submit">Accept the invitation</button>
</form>
<section id="joined" class="card" aria-labelledby="joined-title" hidden>
<h1 id="joined-title">You joined the tenant</h1>
<p>Sign in to the console with <strong id="joined-email"></strong> and your password.</p>
<a id="sign-in" class="button" href="/console/">Sign in</a>
</section>
<p id="status" role="status"></p>
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
