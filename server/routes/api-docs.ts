import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { VaultError } from '../../core/errors/catalogue.ts';
import type { VaultServer } from '../types.ts';

/**
 * `/docs`: the API reference rendered from /openapi.json by Swagger UI (the `swagger-ui-dist`
 * package), served from node_modules: nothing is loaded from elsewhere. Only the bundle, its
 * stylesheet and the few lines that start it are served, never the package's other files.
 */

const require = createRequire(import.meta.url);
const SWAGGER_UI_ROOT = dirname(require.resolve('swagger-ui-dist/package.json'));
const SWAGGER_UI_VERSION = (require('swagger-ui-dist/package.json') as { version: string }).version;

/**
 * The page runs Swagger UI's bundle and its starter from this server, styles from this server,
 * images inline (its icons are data: URLs), and calls only this server (the document, and "Try it
 * out"). No inline script or style, no eval, no framing, no form posts.
 */
export const API_DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE_HEADERS = {
  'content-security-policy': API_DOCS_CSP,
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cross-origin-opener-policy': 'same-origin',
} as const;

/** Starts Swagger UI on this server's document: no URL bar, no external validator badge. */
const STARTER = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  displayOperationId: true,
  layout: 'BaseLayout',
  validatorUrl: null,
});
`;

interface Asset {
  readonly type: string;
  readonly send: () => string | NodeJS.ReadableStream;
}

const fromPackage = (file: string) => () => createReadStream(join(SWAGGER_UI_ROOT, file));

const ASSETS: Readonly<Record<string, Asset>> = {
  'swagger-ui-bundle.js': {
    type: 'text/javascript; charset=utf-8',
    send: fromPackage('swagger-ui-bundle.js'),
  },
  'swagger-ui.css': { type: 'text/css; charset=utf-8', send: fromPackage('swagger-ui.css') },
  'start.js': { type: 'text/javascript; charset=utf-8', send: () => STARTER },
};

/** The version in asset URLs: a new Swagger UI gets new URLs, so a day of caching never serves a stale one. */
const asset = (name: string) => `/docs/assets/${name}?v=${SWAGGER_UI_VERSION}`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference · svc vault</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${asset('swagger-ui.css')}">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${asset('swagger-ui-bundle.js')}" defer></script>
<script src="${asset('start.js')}" defer></script>
</body>
</html>
`;

export function registerApiDocsRoutes(app: VaultServer): void {
  app.get('/docs', { config: { access: 'public' }, schema: { hide: true } }, async (_request, reply) =>
    reply
      .headers(PAGE_HEADERS)
      .header('cache-control', 'no-cache')
      .type('text/html; charset=utf-8')
      .send(PAGE),
  );

  app.get<{ Params: { file: string } }>(
    '/docs/assets/:file',
    { config: { access: 'public' }, schema: { hide: true } },
    async (request, reply) => {
      const found = Object.hasOwn(ASSETS, request.params.file) ? ASSETS[request.params.file] : undefined;
      if (found === undefined) throw new VaultError('NOT_FOUND', 'No such file of the API reference.');
      return reply
        .headers(PAGE_HEADERS)
        .header('cache-control', 'public, max-age=86400')
        .type(found.type)
        .send(found.send());
    },
  );
}
