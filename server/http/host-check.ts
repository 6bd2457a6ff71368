import { isIP } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { VaultError } from '../../core/errors/catalogue.ts';
import { sendProblem } from './problem.ts';

/** Names that always mean this machine; a web page cannot be served from them by someone else. */
const LOOPBACK_NAMES = ['localhost'];

/** The host part of a Host header value (`name:port`, `[v6]:port`), lower case; null when malformed. */
export function hostOf(header: string): string | null {
  const value = header.trim().toLowerCase();
  const bracketed = /^\[([0-9a-f:.]+)\](?::\d{1,5})?$/.exec(value);
  if (bracketed) return bracketed[1] ?? null;
  const plain = /^([a-z0-9.-]+)(?::\d{1,5})?$/.exec(value);
  return plain?.[1] === undefined ? null : plain[1].replace(/\.$/, '');
}

/** The host names of `urls` (e.g. `publicUrl`, the accept-link base); unparsable ones are skipped. */
export function hostsOfUrls(urls: readonly (string | undefined)[]): string[] {
  const hosts: string[] = [];
  for (const url of urls) {
    if (url === undefined) continue;
    try {
      const name = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
      if (name !== '') hosts.push(name.toLowerCase());
    } catch {
      // Not a URL: nothing to allow.
    }
  }
  return hosts;
}

/**
 * DNS-rebinding defence: a page on `evil.example` whose name is re-pointed at 127.0.0.1 reaches
 * this server from the victim's browser as "same origin", but its requests still say
 * `Host: evil.example`. Only these Host values are answered:
 * - IP literals (a page served from an IP cannot be made same-origin with another host),
 * - `localhost`,
 * - the names in `allowed`: the bound host and the host of `publicUrl` (the server adds those).
 * Anything else gets 421 `MISDIRECTED_REQUEST` before routing, so no handler ever runs for it. A
 * request without a Host header (HTTP/1.0; no browser sends one) passes.
 */
export function installHostCheck(app: FastifyInstance, allowed: readonly string[]): void {
  const names = new Set([
    ...LOOPBACK_NAMES,
    ...allowed.map((h) => h.toLowerCase().replace(/^\[(.*)\]$/, '$1')),
  ]);
  // A callback hook (no promise per request): `done` lets the request on; an answered one stops here.
  app.addHook('onRequest', (request, reply, done) => {
    const header = request.headers.host;
    const host = header === undefined ? undefined : hostOf(header);
    if (host === undefined || (host !== null && (isIP(host) !== 0 || names.has(host)))) {
      done();
      return;
    }
    sendProblem(
      reply,
      new VaultError(
        'MISDIRECTED_REQUEST',
        'This server does not answer for the host named in the Host header. Use its address, ' +
          'localhost, or the configured public URL (publicUrl / SVC_PUBLIC_URL).',
      ),
    );
  });
}
