/**
 * The name of the console's session cookie, and how the proxy keeps it away from destinations.
 *
 * Browsers keep cookies per host name, not per port: two vault servers on 127.0.0.1 (the desktop
 * app and `svc serve`, say) would overwrite each other's cookie under one name, so the name
 * carries the port the browser used. Over TLS it gets the `__Host-` prefix, which browsers accept
 * only with `Secure`, `Path=/` and no `Domain`: no other host can plant or widen it.
 */
const BASE = 'svc_console';
const NAME = /^(?:__Host-)?svc_console(?:_\d{1,5})?$/;

/** The session cookie of a console reached on `port` (null: the scheme's default port). */
export function consoleCookieName(port: number | null, secure: boolean): string {
  const name = port === null ? BASE : `${BASE}_${port}`;
  return secure ? `__Host-${name}` : name;
}

/** Whether `name` is a console session cookie of any vault server. */
export function isConsoleCookieName(name: string): boolean {
  return NAME.test(name.trim());
}

/**
 * A `Cookie` header without the console's cookies, or null when nothing else is left. A proxied
 * request keeps the caller's other cookies (they may be meant for the destination), but a
 * destination never receives the console's session.
 */
export function withoutConsoleCookies(header: string): string | null {
  const kept = header
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair !== '' && !isConsoleCookieName(pair.split('=', 1)[0] ?? ''));
  return kept.length === 0 ? null : kept.join('; ');
}

/**
 * Whether a `Set-Cookie` value sets or clears a console session cookie: a destination's answer
 * relayed by the proxy comes from the vault's own origin, so such a header would plant a session
 * of the destination's choosing in the browser.
 */
export function setsConsoleCookie(value: string): boolean {
  return isConsoleCookieName(value.split('=', 1)[0] ?? '');
}
