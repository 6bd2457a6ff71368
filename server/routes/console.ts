import { existsSync } from 'node:fs';
import { readFile, realpath } from 'node:fs/promises';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { VaultError } from '../../core/errors/catalogue.ts';
import type { FastifyReply } from 'fastify';
import type { Services } from '../../core/services-contract.ts';
import type { VaultHandle } from '../../core/vault/types.ts';
import type { ConsoleCookies } from '../http/console-cookie.ts';
import type { VaultServer } from '../types.ts';
import { registerConsoleTokenAccessRoutes } from './console-token-access.ts';
import { registerConsoleSessionRoutes, type ConsoleSignInOptions } from './console-sessions.ts';

/**
 * The page may load only its own scripts, styles and images and call only this server; nothing
 * inline, no eval, no framing, no forms to elsewhere. Vite emits the console as external files.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const CONSOLE_HEADERS = {
  'content-security-policy': CONSOLE_CSP,
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cross-origin-opener-policy': 'same-origin',
} as const;

/** Hashed file names never change content: cached for a year. index.html is always revalidated. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * The built console: `desktop/renderer/dist` of the package this module belongs to, i.e. of the
 * nearest folder above it that holds `desktop/renderer` (the repository, or the packaged app). The
 * build's output folder (dist/, where a copy of package.json lands) has none, so running from the
 * compiled or bundled code finds the same console as running from the sources.
 */
export function defaultConsoleRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'desktop', 'renderer'))) return join(dir, 'desktop', 'renderer', 'dist');
    const parent = dirname(dir);
    if (parent === dir) return join(process.cwd(), 'desktop', 'renderer', 'dist');
    dir = parent;
  }
}

export interface ConsoleOptions extends ConsoleSignInOptions {
  /** Folder of the built console (index.html, assets/). Default: defaultConsoleRoot(). */
  readonly root?: string;
}

const notBuilt = () =>
  new VaultError('NOT_FOUND', 'The console is not built: run `npm run build` and restart the server.');

/**
 * Serves the built console under /console/ and the one-time sign-in exchange. Paths without a
 * file name extension are the console's own pages: they get index.html (the router takes over).
 */
export function registerConsoleRoutes(
  app: VaultServer,
  vault: VaultHandle,
  services: Services,
  cookies: ConsoleCookies,
  options: ConsoleOptions = {},
): void {
  const root = resolve(options.root ?? defaultConsoleRoot());
  registerConsoleSessionRoutes(app, vault, services, cookies, options);
  registerConsoleTokenAccessRoutes(app, services);

  /** A file below root, or null; symbolic links out of root and `..` never resolve. */
  async function fileIn(relative: string): Promise<Buffer | null> {
    const candidate = resolve(root, relative);
    if (candidate !== root && !candidate.startsWith(root + sep)) return null;
    try {
      const real = await realpath(candidate);
      const realRoot = await realpath(root);
      if (!real.startsWith(realRoot + sep)) return null;
      return await readFile(real);
    } catch {
      return null;
    }
  }

  // `/console` and `/console/` (the router ignores trailing slashes) are the console's start page.
  app.get('/console', { config: { access: 'public' }, schema: { hide: true } }, (_request, reply) =>
    serve('', reply),
  );
  app.get('/console/*', { config: { access: 'public' }, schema: { hide: true } }, (request, reply) =>
    serve((request.params as { '*': string })['*'], reply),
  );

  async function serve(wildcard: string, reply: FastifyReply) {
    const path = wildcard === '' ? 'index.html' : wildcard;
    const isPage = extname(path) === '';
    const body = await fileIn(isPage ? 'index.html' : path);
    if (body === null)
      throw isPage || path === 'index.html' ? notBuilt() : new VaultError('NOT_FOUND', 'No such file.');
    const type = TYPES[extname(isPage ? 'index.html' : path)] ?? 'application/octet-stream';
    const hashed = path.startsWith('assets/');
    return reply
      .headers(CONSOLE_HEADERS)
      .header('content-type', type)
      .header('cache-control', hashed ? IMMUTABLE : 'no-cache')
      .send(body);
  }
}
