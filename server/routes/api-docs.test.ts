import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../test-support/test-server.ts';
import { API_DOCS_CSP } from './api-docs.ts';

let server: TestServer;
beforeAll(async () => {
  server = await createTestServer();
});
afterAll(async () => server.dispose());

const get = (url: string) => server.app.inject({ method: 'GET', url });

describe('/docs', () => {
  it('serves the API reference page to anyone, under a CSP without inline code or eval', async () => {
    const page = await get('/docs');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toBe(API_DOCS_CSP);
    expect(API_DOCS_CSP).not.toMatch(/unsafe-eval|unsafe-inline|https?:|\*/);
    expect(page.headers['x-frame-options']).toBe('DENY');
    // Everything the page loads is on this server.
    const sources = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) expect(source).toMatch(/^(\/docs\/assets\/|data:)/);
    expect(page.body).not.toMatch(/<script>|<style>| style="/);
    expect((await get('/docs/')).statusCode).toBe(200);
  });

  it('serves Swagger UI from node_modules and the starter, nothing else of the package', async () => {
    const page = (await get('/docs')).body;
    for (const [name, type] of [
      ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
      ['swagger-ui.css', 'text/css; charset=utf-8'],
      ['start.js', 'text/javascript; charset=utf-8'],
    ] as const) {
      const url = /(\/docs\/assets\/[^"]+)"/.exec(page.slice(page.indexOf(name) - 20))?.[1] ?? '';
      expect(url).toContain(name);
      const response = await get(url);
      expect(response.statusCode, name).toBe(200);
      expect(response.headers['content-type']).toBe(type);
      expect(response.body.length).toBeGreaterThan(0);
    }
    expect((await get('/docs/assets/start.js')).body).toContain("url: '/openapi.json'");
    for (const other of ['index.html', 'package.json', '..%2Fpackage.json', 'swagger-initializer.js']) {
      expect((await get(`/docs/assets/${other}`)).statusCode, other).toBe(404);
    }
  });

  it('is not part of the API document', async () => {
    const document = (await get('/openapi.json')).json() as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths).filter((path) => path.startsWith('/docs'))).toEqual([]);
  });
});
