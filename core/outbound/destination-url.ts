import { isIP } from 'node:net';

/** Longest destination URL accepted (characters), the `destination_url` limit the API publishes. */
export const DESTINATION_URL_MAX = 400;

/**
 * Why `text` is not a usable destination base, or null when it is: an absolute `https:` URL whose
 * host is a DNS name (IP literals are refused outright: the address policy judges names after
 * resolution, and a literal would skip that), without user info (credentials belong in headers,
 * where they are not logged with the URL).
 */
export function destinationUrlProblem(text: string): string | null {
  const checked = checkedDestination(text);
  return typeof checked === 'string' ? checked : null;
}

/**
 * `input` as a URL when it is a usable destination (`destinationUrlProblem`'s rules), else the
 * problem. A URL given is checked as it is, not parsed again, and returned itself.
 */
export function checkedDestination(input: string | URL): URL | string {
  const text = typeof input === 'string' ? input : input.href;
  if (text.length > DESTINATION_URL_MAX) return `must be at most ${DESTINATION_URL_MAX} characters`;
  let url: URL;
  try {
    url = typeof input === 'string' ? new URL(input) : input;
  } catch {
    return 'must be an absolute https:// URL';
  }
  if (url.protocol !== 'https:') return 'must use https://';
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') return 'must name a host';
  if (isIP(host) !== 0 || isNumericHost(host)) return 'must name the host by DNS name, not an IP address';
  if (url.username !== '' || url.password !== '') return 'must not carry a user name or password';
  return url;
}

/**
 * Host names made only of digits and dots are IPv4 to some resolvers (`2130706433`, `0x7f.1`): refuse
 * them like literals. WHATWG URL parsing already turns most into dotted quads; this catches the rest.
 */
function isNumericHost(host: string): boolean {
  return /^[0-9.]+$/.test(host) || /^(0x[0-9a-f]+\.?)+$/i.test(host);
}
