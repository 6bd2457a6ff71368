/**
 * The one-time sign-in link carries its secret in the fragment (`/console/#svco_…`), which the
 * browser never sends to the server. It is read once at start-up and wiped from the address bar
 * and history right away, so a reload, a bookmark or a screen share does not carry it.
 */
export function takeLinkSecret(location: Location, history: History): string | null {
  const fragment = location.hash.replace(/^#/, '');
  if (!/^svco_[0-9A-Za-z]+$/.test(fragment)) return null;
  history.replaceState(null, '', location.pathname + location.search);
  return fragment;
}
