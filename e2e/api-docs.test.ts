/**
 * The API reference at /docs in Chromium: Swagger UI renders the server's own document under the
 * page's CSP, with no refusal and no request leaving this server.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../server/test-support/test-server.ts';
import { HAS_CHROMIUM, launchChromium } from './console-browser.ts';

describe.skipIf(!HAS_CHROMIUM)('the API reference at /docs in Chromium', { timeout: 120_000 }, () => {
  let server: TestServer;
  let url: string;
  let browser: Browser;

  beforeAll(async () => {
    server = await createTestServer();
    url = await server.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.dispose();
  });

  it('renders every operation with its operationId, within its CSP and this server', async () => {
    const page = await browser.newPage();
    const refusals: string[] = [];
    const elsewhere: string[] = [];
    const errors: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) refusals.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('request', (request) => {
      if (!request.url().startsWith(url) && !request.url().startsWith('data:')) elsewhere.push(request.url());
    });
    await page.goto(`${url}/docs`);
    await page.getByRole('heading', { name: /svc vault API/ }).waitFor();
    await page.getByText('Tokens_Create', { exact: true }).waitFor();
    const document = (await (await fetch(`${url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const operations = Object.values(document.paths).reduce(
      (n, methods) => n + Object.keys(methods).length,
      0,
    );
    expect(await page.locator('.opblock').count()).toBe(operations);
    // The server the reference names, for "Try it out", is this one.
    expect(await page.locator('.servers select').inputValue()).toBe(url);
    expect({ refusals, elsewhere, errors }).toEqual({ refusals: [], elsewhere: [], errors: [] });
    await page.close();
  });
});
