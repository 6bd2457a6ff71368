import { expect } from 'vitest';
import { createKey, createTenantFixture, operator, type TenantFixture } from './identity.ts';
import { createTestServer, type TestServer } from './test-server.ts';
import { rule } from './tokens.ts';

export const CARD = { number: '4242424242424242', expiration_month: 12, expiration_year: 2030 };

export interface ReactorResponse {
  readonly status: number;
  readonly body: Record<string, unknown> | null;
  readonly headers: Record<string, unknown>;
}

/** Wall-clock budget of one invocation in a ReactorWorld, unless the test chooses another. */
export const REACTOR_TEST_TIMEOUT_MS = 1500;

/**
 * A test server with a tenant for reactor tests: a small sandbox (two workers, `timeoutMs`, default
 * REACTOR_TEST_TIMEOUT_MS, and 16 MiB per invocation), three tokens (a card, a name `Ada`, a secret in `/secret/`), an application that may
 * use tokens in `/pci/` and `/general/`, and a reactor application that creates and reads tokens but
 * may not delete them.
 */
export class ReactorWorld {
  private constructor(
    readonly server: TestServer,
    readonly tenant: TenantFixture,
    /** Headers of the tenant's management key. */
    readonly admin: Record<string, string>,
    /** Headers of the application that uses tokens in `/pci/` and `/general/`. */
    readonly user: Record<string, string>,
    /** The reactors' own application. */
    readonly appId: string,
    readonly cardId: string,
    readonly nameId: string,
    readonly secretId: string,
  ) {}

  static async create(timeoutMs = REACTOR_TEST_TIMEOUT_MS): Promise<ReactorWorld> {
    const server = await createTestServer({
      serviceOptions: { sandbox: { workers: 2, limits: { timeoutMs, memoryBytes: 16 * 1024 * 1024 } } },
    });
    const tenant = await createTenantFixture(server.services, 'Reactors');
    const op = operator(tenant.tenant.id);
    const create = async (input: Parameters<typeof server.services.tokens.create>[1]) =>
      (await server.services.tokens.create(op, input)).token.id;
    const cardId = await create({ type: 'card', data: CARD });
    const nameId = await create({ type: 'token', data: 'Ada' });
    const secretId = await create({ data: 'hidden', containers: ['/secret/'] });
    const caller = await server.services.applications.create(op, {
      name: 'caller',
      type: 'private',
      permissions: [],
      rules: [rule('/pci/', ['token:use'], 'reveal', 1), rule('/general/', ['token:use'], 'reveal', 2)],
    });
    const bot = await createKey(
      server.services,
      tenant.tenant.id,
      'private',
      ['token:create', 'token:read'],
      'bot',
    );
    return new ReactorWorld(
      server,
      tenant,
      { 'svc-api-key': tenant.admin.key },
      { 'svc-api-key': caller.key },
      bot.id,
      cardId,
      nameId,
      secretId,
    );
  }

  async call(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    headers: Record<string, string>,
    payload?: unknown,
  ): Promise<ReactorResponse> {
    const response = await this.server.app.inject({
      method,
      url,
      headers,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return {
      status: response.statusCode,
      body: response.body === '' ? null : (JSON.parse(response.body) as Record<string, unknown>),
      headers: response.headers,
    };
  }

  /** Creates a private formula with `code` (and `extra` fields) as the management key; its id. */
  async formula(code: string, extra: Record<string, unknown> = {}): Promise<string> {
    const r = await this.call('POST', '/reactor-formulas', this.admin, {
      name: 'f',
      type: 'private',
      code,
      configuration: [],
      request_parameters: [],
      ...extra,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body?.['id'] as string;
  }

  /** Creates a reactor of `formulaId` running as the reactor application; its id. */
  async reactor(formulaId: string, extra: Record<string, unknown> = {}): Promise<string> {
    const r = await this.call('POST', '/reactors', this.admin, {
      name: 'r',
      formula: { id: formulaId },
      configuration: {},
      application: { id: this.appId },
      ...extra,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body?.['id'] as string;
  }

  /** Invokes reactor `id` with `args`, by default as the token-using application. */
  react(id: string, args: unknown, headers = this.user): Promise<ReactorResponse> {
    return this.call('POST', `/reactors/${id}/react`, headers, { args });
  }

  dispose(): Promise<void> {
    return this.server.dispose();
  }
}
