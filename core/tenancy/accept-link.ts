/** Where the accept page is served: links are `<server origin>/invitations/accept?token=…`. */
export const ACCEPT_PATH = '/invitations/accept';

/** The accept-link base of a server at `origin` (`http://127.0.0.1:8080`, a public URL…). */
export function acceptBaseUrlAt(origin: string): string {
  return `${origin}${ACCEPT_PATH}`;
}

/** The origin of a server listening on this machine's loopback at `port`. */
export function loopbackOrigin(port: number): string {
  return `http://127.0.0.1:${port}`;
}
