import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Type } from 'typebox';
import { createTestServer, type TestServer } from '../test-support/test-server.ts';
import { pageQuery, pageWindow, paginate, paginated } from './pagination.ts';

describe('paginate', () => {
  it('builds the envelope with the page count rounded up', () => {
    expect(paginate(['a'], 924, 93, 10)).toEqual({
      pagination: { total_items: 924, page_number: 93, page_size: 10, total_pages: 93 },
      data: ['a'],
    });
  });

  it('reports zero pages for zero items', () => {
    expect(paginate([], 0, 1, 20).pagination.total_pages).toBe(0);
  });

  it('reports zero pages for size 0, with the total', () => {
    expect(paginate([], 45, 1, 0).pagination).toEqual({
      total_items: 45,
      page_number: 1,
      page_size: 0,
      total_pages: 0,
    });
  });
});

describe('pageWindow', () => {
  it('turns a page into an SQL offset and limit', () => {
    expect(pageWindow({ page: 1, size: 20 })).toEqual({ offset: 0, limit: 20 });
    expect(pageWindow({ page: 3, size: 10 })).toEqual({ offset: 20, limit: 10 });
  });
});

describe('pageQuery', () => {
  it('refuses a default outside the allowed sizes', () => {
    expect(() => pageQuery({ defaultSize: 0, maxSize: 100 })).toThrow(RangeError);
    expect(() => pageQuery({ defaultSize: 60, maxSize: 50 })).toThrow(RangeError);
  });
});

describe('a paginated route', () => {
  const items = Array.from({ length: 45 }, (_, i) => ({ id: `item-${i}` }));
  let server: TestServer;

  beforeEach(async () => {
    server = await createTestServer({
      routes: (app) => {
        app.get(
          '/items',
          {
            config: { access: 'public' },
            schema: {
              querystring: Type.Object({
                ...pageQuery({ defaultSize: 10, maxSize: 50 }).properties,
                prefix: Type.Optional(Type.String()),
              }),
              response: { 200: paginated(Type.Object({ id: Type.String() })) },
            },
          },
          async (request) => {
            const { page, size } = request.query;
            const { offset, limit } = pageWindow({ page, size });
            return paginate(items.slice(offset, offset + limit), items.length, page, size);
          },
        );
      },
    });
  });

  afterEach(async () => {
    await server.dispose();
  });

  it('applies the defaults', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/items' });
    expect(response.statusCode).toBe(200);
    const body = response.json() as { pagination: unknown; data: Array<{ id: string }> };
    expect(body.pagination).toEqual({ total_items: 45, page_number: 1, page_size: 10, total_pages: 5 });
    expect(body.data.map((item) => item.id)).toEqual(items.slice(0, 10).map((item) => item.id));
  });

  it('serves a later, partial page', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/items?page=3&size=20' });
    const body = response.json() as { pagination: unknown; data: unknown[] };
    expect(body.pagination).toEqual({ total_items: 45, page_number: 3, page_size: 20, total_pages: 3 });
    expect(body.data).toHaveLength(5);
  });

  it('answers size=0 with an empty page and the totals', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/items?size=0&page=3' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      pagination: { total_items: 45, page_number: 3, page_size: 0, total_pages: 0 },
      data: [],
    });
  });

  it.each([
    ['size=-1', 'size', 'must be >= 0'],
    ['size=51', 'size', 'must be <= 50'],
    ['page=0', 'page', 'must be >= 1'],
    ['page=-2', 'page', 'must be >= 1'],
    ['size=abc', 'size', 'must be integer'],
    ['page=1.5', 'page', 'must be integer'],
  ])('answers %s with a 400 problem naming the field', async (query, field, message) => {
    const response = await server.app.inject({ method: 'GET', url: `/items?${query}` });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ code: 'VALIDATION_FAILED', errors: { [field]: [message] } });
  });
});
