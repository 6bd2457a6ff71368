/**
 * THE AUTHORIZATION MATRIX. Every route the server registers (read from the server itself, not
 * from a list here) is called by every kind of caller, and the answer is checked against what the
 * route's access declaration promises. A new route fails this suite until it has a fixture below;
 * a route without an access declaration cannot even be registered (see access.test.ts).
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { InjectOptions } from 'fastify';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import {
  PERMISSIONS,
  permissionsFor,
  MANAGEMENT_PERMISSIONS,
  type ApplicationType,
} from '../core/access/permissions.ts';
import type { Reactor, ReactorFormula } from '../core/reactors/contract.ts';
import { OFFICIAL_FORMULAS } from '../core/reactors/official-formulas.ts';
import type { ApplicationWithKey } from '../core/services-contract.ts';
import type { Invitation, Member } from '../core/tenancy/contract.ts';
import type { TokenView } from '../core/tokens/contract.ts';
import {
  requiredPermissions,
  routeAccessTable,
  type AccessDeclaration,
  type DeclaredRoute,
} from './http/access.ts';
import {
  createKey,
  createTenantFixture,
  operator,
  signIn,
  UNKNOWN_KEY,
  type TenantFixture,
} from './test-support/identity.ts';
import { acceptLinkOf, outboxMessages } from '../core/test-support/smtp-sink.ts';
import { consoleSignInLink } from './routes/console-sessions.ts';
import { createTestServer, type TestServer, type TestServerOptions } from './test-support/test-server.ts';
import { createSandbox, type Sandbox } from '../core/sandbox/index.ts';
import { createOutboundClient, DEFAULT_OUTBOUND_SETTINGS, sandboxFetchFrom } from '../core/outbound/index.ts';
import { copyTempVault, type TempVault } from '../core/test-support/temp-vault.ts';
import { testBackend } from '../core/test-support/test-vault.ts';
import { operatorCredentialOf } from './operator-credential.ts';
import { MERGE_PATCH } from './test-support/tokens.ts';

/** The operator credential of the matrix's servers. */
const OPERATOR_SECRET = 'matrix-operator-credential';

/**
 * One sandbox for every server of the file: each server's services would start a pool of worker
 * threads (`bench/quickjs-start.ts` shows their cost) for its first formula check or run, and every
 * run starts from fresh code in a worker either way. Closing a server's reactor service leaves it
 * running; the file closes it at the end.
 */
let sandboxPool: Sandbox | undefined;
function serverOptions(): TestServerOptions {
  sandboxPool ??= createSandbox({ fetch: sandboxFetchFrom(createOutboundClient(DEFAULT_OUTBOUND_SETTINGS)) });
  const pool = sandboxPool;
  const sandbox: Sandbox = {
    limits: pool.limits,
    checkModuleCode: (code, tenant) => pool.checkModuleCode(code, tenant),
    runModule: (request) => pool.runModule(request),
    close: async () => undefined,
  };
  return { operatorCredential: operatorCredentialOf(OPERATOR_SECRET), internals: { sandbox } };
}

const SCENARIOS = [
  'no credential',
  'unknown key',
  'key of another tenant',
  'key without the permission',
  'key with the permission',
  'member session',
  'non-member session',
  'operator credential',
] as const;
type Scenario = (typeof SCENARIOS)[number];

/** Resources of tenant A that requests can name, and the callers, created on first use. */
class World {
  private constructor(
    readonly server: TestServer,
    readonly a: TenantFixture,
    /** An application of tenant A that path parameters name. */
    readonly target: ApplicationWithKey,
    /** A token of tenant A that path parameters name (its id needs URL-encoding). */
    readonly token: TokenView,
    /** The resources and callers made so far, by name (a fresh world starts with the seed's). */
    private readonly memo = new Map<string, Promise<unknown>>(),
  ) {}

  static async create(): Promise<World> {
    const server = await createTestServer(serverOptions());
    try {
      const a = await createTenantFixture(server.services, 'Tenant A');
      const target = await createKey(server.services, a.tenant.id, 'private', ['token:read'], 'target');
      const { token } = await server.services.tokens.create(operator(a.tenant.id), {
        id: 'matrix token ä',
        data: 'matrix token data',
        metadata: { origin: 'matrix' },
      });
      return new World(server, a, target, token);
    } catch (error) {
      await server.dispose();
      throw error;
    }
  }

  /**
   * A world of its own: a state-changing request's, or the one the reads share. On the embedded
   * backend it is a copy of the files of one seeded vault (World.create's tenant, application and
   * token, and every resource and caller a state-changing case asks for) behind a new server: every
   * world starts from the same rows, without creating, migrating and filling a vault, hashing
   * passwords, making keys and signing in for each case.
   */
  static async fresh(): Promise<World> {
    if (testBackend() !== 'embedded') return World.create();
    const seed = await (seeded ??= World.seed());
    const server = await createTestServer({ ...serverOptions(), vault: await copyTempVault(seed.temp) });
    // The seed's resources and callers are rows of the copy: its memo holds for the copy as well.
    return new World(server, seed.a, seed.target, seed.token, new Map(seed.memo));
  }

  /**
   * A world made from scratch holding everything the state-changing cases use, whose server is
   * closed and whose vault is closed and kept, to be copied.
   */
  private static async seed(): Promise<Seed> {
    const world = await World.create();
    const { app, services, temp } = world.server;
    try {
      await makeEveryFixture(world);
      await app.close();
      await services.reactors.close();
      // Closing writes every row into the snapshot, so a copy opens without replaying a journal.
      await temp.vault.close();
    } catch (error) {
      await temp.dispose();
      throw error;
    }
    return { temp, a: world.a, target: world.target, token: world.token, memo: world.memo };
  }

  private once<T>(key: string, make: () => Promise<T>): Promise<T> {
    let value = this.memo.get(key) as Promise<T> | undefined;
    if (value === undefined) {
      value = make();
      this.memo.set(key, value);
    }
    return value;
  }

  /**
   * A pending invitation of tenant A and the secret of its link, read from the outbox folder the
   * default services mail into (next to the vault file).
   */
  invitation(key = 'invitation'): Promise<{ invitation: Invitation; email: string; secret: string }> {
    return this.once(key, async () => {
      const email = `invitee-${randomUUID().slice(0, 8)}@example.test`;
      const invitation = await this.server.services.invitations.create(operator(this.a.tenant.id), { email });
      const mails = await outboxMessages(join(this.server.temp.dir, 'outbox'));
      const mail = mails.find((m) => [m.to].flat().some((to) => to?.text.includes(email)));
      if (mail === undefined) throw new Error(`no invitation mail to ${email} in the outbox`);
      return { invitation, email, secret: acceptLinkOf(mail).secret };
    });
  }

  /** A member of tenant A other than the owner (role ADMIN), who joined through an invitation. */
  member(): Promise<Member> {
    return this.once('admin member', async () => {
      const { secret } = await this.invitation('invitation of the member');
      const { member } = await this.server.services.invitations.accept({
        token: secret,
        first_name: 'Matrix',
        last_name: 'Member',
        password: `pw-${randomUUID()}`,
      });
      return member;
    });
  }

  /** A private reactor formula of tenant A; the one named 'formula' is used by no reactor. */
  formula(key = 'formula'): Promise<ReactorFormula> {
    return this.once(key, async () => {
      const saved = await this.server.services.reactors.createFormula(operator(this.a.tenant.id), {
        name: 'matrix formula',
        type: 'private',
        code: 'module.exports = async () => ({ raw: "ok" });',
      });
      return saved.formula;
    });
  }

  /** A reactor of tenant A, without an application. */
  reactor(): Promise<Reactor> {
    return this.once('reactor', async () =>
      this.server.services.reactors.create(operator(this.a.tenant.id), {
        name: 'matrix reactor',
        formula: { id: (await this.formula('formula of the reactor')).id },
        configuration: {},
      }),
    );
  }

  /** A proxy of tenant A. */
  proxy(): Promise<{ id: string }> {
    return this.once('proxy', async () => ({
      id: (
        await this.server.services.proxies.create(operator(this.a.tenant.id), {
          name: 'matrix proxy',
          destination_url: 'https://api.example.test/',
        })
      ).id,
    }));
  }

  /** The matrix token as parent and a second token of tenant A as its (not yet linked) child. */
  childLink(): Promise<{ parentId: string; childId: string }> {
    return this.once('child link', async () => {
      const { token } = await this.server.services.tokens.create(operator(this.a.tenant.id), {
        data: 'matrix child data',
      });
      return { parentId: this.token.id, childId: token.id };
    });
  }

  /** Another such pair, linked. */
  linkedChild(): Promise<{ parentId: string; childId: string }> {
    return this.once('linked child', async () => {
      const { token } = await this.server.services.tokens.create(operator(this.a.tenant.id), {
        data: 'matrix linked child data',
      });
      await this.server.services.tokenAssociations.associate(
        operator(this.a.tenant.id),
        this.token.id,
        token.id,
      );
      return { parentId: this.token.id, childId: token.id };
    });
  }

  tenantB(): Promise<TenantFixture> {
    return this.once('b', () => createTenantFixture(this.server.services, 'Tenant B'));
  }

  /** A key of `tenantId` holding every permission of its type, `permission` included or left out. */
  key(tenantId: string, access: AccessDeclaration, holdsIt: boolean): Promise<string> {
    const { type, permissions } = grantsFor(access, holdsIt);
    return this.once(`key:${tenantId}:${type}:${permissions.join(',')}`, async () => {
      const app = await createKey(this.server.services, tenantId, type, permissions);
      return app.key;
    });
  }

  memberToken(): Promise<string> {
    return this.once('member', () => signIn(this.server.services, this.a.ownerEmail, this.a.ownerPassword));
  }

  /** A session of tenant B's owner: a real user, but no member of A. */
  nonMemberToken(): Promise<string> {
    return this.once('non-member', async () => {
      const b = await this.tenantB();
      return signIn(this.server.services, b.ownerEmail, b.ownerPassword);
    });
  }

  /**
   * Tenant A's rows, read from the database directly (the services might audit a read): compared
   * before and after a request with another tenant's key.
   */
  async digestOfA(): Promise<string> {
    const { db } = this.server.temp.vault;
    const tenantId = this.a.tenant.id;
    const tenant = await db.selectFrom('tenants').selectAll().where('id', '=', tenantId).execute();
    const apps = await db
      .selectFrom('applications')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .orderBy('id')
      .execute();
    const members = await db.selectFrom('members').selectAll().where('tenant_id', '=', tenantId).execute();
    const logs = await db.selectFrom('audit_logs').select('id').where('tenant_id', '=', tenantId).execute();
    const tokens = await db
      .selectFrom('tokens')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .orderBy('row_id')
      .execute();
    const activity = await db
      .selectFrom('token_activity')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .orderBy('token_id')
      .execute();
    const invitations = await db
      .selectFrom('invitations')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .orderBy('id')
      .execute();
    const links = await db
      .selectFrom('token_associations')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .orderBy('parent_rowid')
      .orderBy('child_rowid')
      .execute();
    const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
    return JSON.stringify({
      tenant,
      apps: apps.map((app) => ({ ...app, key_hash: hex(app.key_hash) })),
      members,
      logs: logs.length,
      tokens,
      activity,
      invitations: invitations.map((row) => ({ ...row, secret_hash: hex(row.secret_hash) })),
      links,
    });
  }

  /** Every row of every table of the vault, once the proxy invocations' audit entries are written. */
  async allRows(): Promise<string> {
    await this.server.services.proxyInvoker.settled();
    const { db } = this.server.temp.vault;
    const tables = await this.once('tables', async () =>
      (await db.introspection.getTables()).map((t) => t.name),
    );
    const rows: Record<string, unknown[]> = {};
    for (const table of tables) rows[table] = (await sql.raw(`SELECT * FROM "${table}"`).execute(db)).rows;
    return JSON.stringify(rows, (_key, value: unknown) =>
      value instanceof Uint8Array ? Buffer.from(value).toString('hex') : value,
    );
  }

  dispose(): Promise<void> {
    return this.server.dispose();
  }
}

/** The closed vault of a world made from scratch, and what it holds, for World.fresh to copy. */
interface Seed {
  readonly temp: TempVault;
  readonly a: TenantFixture;
  readonly target: ApplicationWithKey;
  readonly token: TokenView;
  readonly memo: ReadonlyMap<string, Promise<unknown>>;
}
let seeded: Promise<Seed> | undefined;

/** The application type and permissions of a key for a route: all of the type's, with or without the route's. */
function grantsFor(
  access: AccessDeclaration,
  holdsIt: boolean,
): { type: ApplicationType; permissions: string[] } {
  if (typeof access !== 'object') {
    // No permission is needed: "with" is a full management key, "without" a key with one unrelated permission.
    return holdsIt
      ? { type: 'management', permissions: [...MANAGEMENT_PERMISSIONS] }
      : { type: 'management', permissions: ['report:read'] };
  }
  // With several required permissions, "without" lacks the last one but holds the others: holding
  // only some of them is not enough.
  const required = requiredPermissions(access);
  const definition = PERMISSIONS.find((p) => p.type === required[0]);
  const type = definition?.application_types[0];
  if (type === undefined) throw new Error(`No application type may hold ${required.join(', ')}`);
  const all = permissionsFor(type);
  if (holdsIt) return { type, permissions: all };
  const rest = all.filter((p) => p !== required.at(-1));
  // A type whose only permission is this one: a management key lacks it just as well.
  return rest.length > 0 ? { type, permissions: rest } : { type: 'management', permissions: ['report:read'] };
}

interface RouteFixture {
  /** Path parameters naming resources of tenant A. */
  readonly params?: (world: World) => Record<string, string> | Promise<Record<string, string>>;
  readonly query?: Record<string, string>;
  readonly body?: (world: World) => unknown;
  readonly headers?: Record<string, string>;
  /**
   * Answered without writing to the vault, whoever calls: the callers that would each get a world
   * of their own share one instead, and each of their cases checks that no row of it changed.
   */
  readonly writesNothing?: true;
}

const targetId = (world: World) => ({ id: world.target.id });
const oneTimeSecret = (app: TestServer['app']) => consoleSignInLink(app, 'http://127.0.0.1').split('#')[1];
const tokenId = (world: World) => ({ id: world.token.id });
const memberId = async (world: World) => ({ id: (await world.member()).id });
const invitationId = async (world: World) => ({ id: (await world.invitation()).invitation.id });
const childLink = (world: World) => world.childLink();
const linkedChild = (world: World) => world.linkedChild();
const formulaId = async (world: World) => ({ id: (await world.formula()).id });
const reactorId = async (world: World) => ({ id: (await world.reactor()).id });
const formulaBody = () => ({ name: 'matrix', type: 'private', code: 'module.exports = async () => ({});' });
const proxyId = (world: World) => world.proxy();
const proxyBody = () => ({ name: 'matrix proxy', destination_url: 'https://api.example.test/v1' });

/**
 * How to call each route. Only requests are described here; what each caller must get is derived
 * from the route's access declaration. A route missing here fails the suite.
 */
const ROUTE_FIXTURES: Readonly<Record<string, RouteFixture>> = {
  'GET /healthz': {},
  'GET /openapi.json': {},
  'GET /docs': {},
  'GET /docs/assets/:file': { params: () => ({ file: 'start.js' }) },
  'POST /auth/login': { body: (w) => ({ email: w.a.ownerEmail, password: w.a.ownerPassword }) },
  'POST /auth/logout': {},
  'GET /tenants': {},
  'POST /tenants': { body: () => ({ name: 'Made by the matrix' }) },
  'GET /tenants/self': {},
  'PUT /tenants/self': {
    body: () => ({ name: 'Renamed by the matrix', settings: { deduplicate_tokens: 'true' } }),
  },
  'DELETE /tenants/self': {},
  'POST /applications': {
    body: () => ({ name: 'matrix app', type: 'management', permissions: ['log:read'] }),
  },
  'GET /applications': {},
  'GET /applications/key': {},
  'GET /applications/:id': { params: targetId },
  'PUT /applications/:id': {
    params: targetId,
    body: () => ({ name: 'renamed', permissions: ['token:search'] }),
  },
  'DELETE /applications/:id': { params: targetId },
  'GET /application-templates': {},
  'GET /application-templates/:id': { params: () => ({ id: '8c5b6f3e-0f2a-4c63-9a57-1d2e3f4a5b01' }) },
  'POST /applications/:id/regenerate': { params: targetId },
  'GET /permissions': {},
  'GET /logs': {},
  'GET /logs/entity-types': {},
  'GET /logs/verify': {},
  'POST /tokenize': { body: () => ({ card: 'tokenized by the matrix', list: [1, 2] }) },
  'POST /tokens': { body: () => ({ data: 'created by the matrix', metadata: { origin: 'matrix' } }) },
  'GET /tokens': {},
  'POST /tokens/search': { body: () => ({ query: 'metadata.origin:matrix' }) },
  'GET /tokens/:id': { params: tokenId },
  'PATCH /tokens/:id': {
    params: tokenId,
    headers: { 'content-type': MERGE_PATCH },
    body: () => ({ metadata: { patched: 'by the matrix' } }),
  },
  'DELETE /tokens/:id': { params: tokenId },
  'POST /tokens/:parentId/children/:childId': { params: childLink },
  'DELETE /tokens/:parentId/children/:childId': { params: (w) => linkedChild(w) },
  'POST /tokens/:parentId/children': {
    params: (w) => ({ parentId: w.token.id }),
    body: () => ({ data: 'child created by the matrix' }),
  },
  'GET /tokens/:parentId/children': { params: (w) => linkedChild(w) },
  'GET /tenants/self/reports/usage': {},
  'GET /vault/headroom': {},
  'GET /tenants/self/members': {},
  'DELETE /tenants/self/members/:id': { params: memberId },
  'PUT /tenants/self/members/:id': { params: memberId, body: () => ({ role: 'ADMIN' }) },
  'GET /tenants/self/owner': {},
  'GET /tenants/self/reports/operations': {},
  'POST /tenants/self/invitations': { body: () => ({ email: 'invited-by-the-matrix@example.test' }) },
  'GET /tenants/self/invitations': {},
  'GET /tenants/self/invitations/:id': { params: invitationId },
  'POST /tenants/self/invitations/:id/resend': { params: invitationId },
  'DELETE /tenants/self/invitations/:id': { params: invitationId },
  'POST /detokenize': { body: () => ({ plain: 'no expressions here' }) },
  'POST /reactor-formulas': { body: formulaBody },
  'GET /reactor-formulas': {},
  'GET /reactor-formulas/:id': { params: formulaId },
  'PUT /reactor-formulas/:id': { params: formulaId, body: formulaBody },
  'DELETE /reactor-formulas/:id': { params: formulaId },
  'POST /reactors': {
    body: () => ({ name: 'matrix', formula: { id: OFFICIAL_FORMULAS[0]?.id }, configuration: {} }),
  },
  'GET /reactors': {},
  'GET /reactors/:id': { params: reactorId },
  'PUT /reactors/:id': { params: reactorId, body: () => ({ name: 'renamed', configuration: {} }) },
  'DELETE /reactors/:id': { params: reactorId },
  'POST /reactors/:id/react': { params: reactorId, body: () => ({ args: { a: 1 } }) },
  'POST /proxies': { body: proxyBody },
  'GET /proxies': {},
  'GET /proxies/:id': { params: proxyId },
  'PUT /proxies/:id': { params: proxyId, body: proxyBody },
  'DELETE /proxies/:id': { params: proxyId },
  // Proxy invocation authenticates inside (require_auth may be off); without a route it is a 400,
  // before any proxy or key is looked up.
  ...Object.fromEntries(
    ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].flatMap((m) => [
      [`${m} /proxy`, { writesNothing: true }],
      [`${m} /proxy/*`, { writesNothing: true }],
    ]),
  ),
  'GET /invitations/accept': {},
  'POST /invitations/accept': {
    body: async (w) => ({
      token: (await w.invitation()).secret,
      first_name: 'Accepted',
      last_name: 'By the matrix',
      password: 'a password of the matrix',
    }),
  },
  'GET /operator/tenants': {},
  'POST /operator/tenants': {
    body: () => ({ name: 'Made by the operator', owner_email: 'op@example.test' }),
  },
  'GET /operator/users': { query: { email: 'nobody@example.test' } },
  'PUT /operator/users/:id/password': {
    params: async (w) => ({ id: (await w.member()).user.id }),
    body: () => ({ password: 'a password of the matrix operator' }),
  },
  'GET /operator/vault/status': {},
  'POST /operator/vault/compact': {},
  'POST /operator/vault/backup': {
    body: (w) => ({ file: join(w.server.temp.dir, `backup-${randomUUID()}.svc`) }),
  },
  'GET /operator/logs/verify': {},
  'GET /console': {},
  'GET /console/*': {},
  'POST /console/sessions': { body: (w) => ({ secret: oneTimeSecret(w.server.app) }) },
  'POST /console/sessions/login': { body: (w) => ({ email: w.a.ownerEmail, password: w.a.ownerPassword }) },
  'GET /console/session': {},
  // The console's own endpoints answer its cookie session only (server/routes/console-session.test.ts).
  'GET /console/token-access': {},
  'PUT /console/token-access': { body: () => ({ mode: 'session-application' }) },
  'DELETE /console/token-access': {},
  'POST /console/tokens/:id/reveal': { params: tokenId },
};

// The routes, as the server itself reports them.
const routes: DeclaredRoute[] = await (async () => {
  const probe = await createTestServer({ operatorCredential: operatorCredentialOf(OPERATOR_SECRET) });
  try {
    await probe.app.ready();
    return [...routeAccessTable(probe.app)];
  } finally {
    await probe.dispose();
  }
})();

/** HEAD routes are Fastify's automatic twins of GET routes and are called like them. */
function fixtureKey(route: DeclaredRoute): string {
  return `${route.method === 'HEAD' ? 'GET' : route.method} ${route.url}`;
}

function fillPath(url: string, params: Record<string, string>): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`The fixture of ${url} gives no value for :${name}`);
    return encodeURIComponent(value);
  });
}

async function headersFor(
  world: World,
  route: DeclaredRoute,
  scenario: Scenario,
): Promise<Record<string, string>> {
  const tenantA = world.a.tenant.id;
  switch (scenario) {
    case 'no credential':
      return {};
    case 'unknown key':
      return { 'svc-api-key': UNKNOWN_KEY };
    case 'key of another tenant': {
      const b = await world.tenantB();
      return { 'svc-api-key': await world.key(b.tenant.id, route.access, true) };
    }
    case 'key without the permission':
      return { 'svc-api-key': await world.key(tenantA, route.access, false) };
    case 'key with the permission':
      return { 'svc-api-key': await world.key(tenantA, route.access, true) };
    case 'member session':
      return { authorization: `Bearer ${await world.memberToken()}`, 'svc-tenant-id': tenantA };
    case 'non-member session':
      return { authorization: `Bearer ${await world.nonMemberToken()}`, 'svc-tenant-id': tenantA };
    case 'operator credential':
      return { 'svc-operator-key': OPERATOR_SECRET, 'svc-tenant-id': tenantA };
  }
}

interface Outcome {
  readonly status: number;
  readonly body: string;
}

type Check = (outcome: Outcome, world: World) => void | Promise<void>;

/** Checks that expect the request refused: it changes nothing, so it may run in the shared world. */
const refusals = new WeakSet<Check>();

const is = (expected: number): Check => {
  const check: Check = ({ status, body }) => expect(status, body).toBe(expected);
  if (expected === 401 || expected === 403 || expected === 404) refusals.add(check);
  return check;
};
const succeeds: Check = ({ status, body }) =>
  expect(status >= 200 && status < 300, `${status} ${body}`).toBe(true);
/** Passed the access check: neither 401 nor 403 (nor a failure of ours). */
const admitted: Check = ({ status, body }) => {
  expect([401, 403], `${status} ${body}`).not.toContain(status);
  expect(status, body).toBeLessThan(500);
};

/**
 * Operator routes that work on the vault file itself: on a database they pass the access check and
 * are then refused as a usage error (400), so there the operator is admitted, not served.
 */
const FILE_ONLY_ROUTES = new Set(['POST /operator/vault/backup']);
const servedOnThisBackend = (route: DeclaredRoute): boolean =>
  testBackend() === 'embedded' || !FILE_ONLY_ROUTES.has(`${route.method} ${route.url}`);

/** What `scenario` must get from a route declaring `access`. */
function expectationFor(route: DeclaredRoute, scenario: Scenario): Check {
  const { access } = route;
  const namesResource = route.url.includes(':');
  if (access === 'public') return admitted;
  if (scenario === 'no credential' || scenario === 'unknown key') return is(401);
  if (scenario === 'operator credential') {
    // The operator acts on tenant-scoped routes (in the named tenant) and operator routes only.
    if (access === 'operator') return servedOnThisBackend(route) ? succeeds : admitted;
    if (access === 'console') return is(403);
    return typeof access === 'object' ? admitted : is(403);
  }
  if (access === 'operator') return is(403);
  // The console's cookie session only: no key, bearer token or operator credential gets in.
  if (access === 'console') return is(403);
  if (access === 'authenticated') return admitted;
  if (access === 'session') {
    return scenario === 'member session' || scenario === 'non-member session' ? admitted : is(403);
  }
  const management = requiredPermissions(access).every((p) => MANAGEMENT_PERMISSIONS.includes(p));
  switch (scenario) {
    case 'key without the permission':
      return is(403);
    case 'key with the permission':
      return succeeds;
    case 'key of another tenant':
      // A resource of tenant A does not exist for B; `/…/self` routes act on B's own tenant.
      return namesResource
        ? is(404)
        : (outcome, world) => {
            succeeds(outcome, world);
            expect(outcome.body).not.toContain(world.a.tenant.id);
            expect(outcome.body).not.toContain(world.target.id);
            expect(outcome.body).not.toContain(world.token.id);
          };
    case 'member session':
      return management ? admitted : is(403);
    case 'non-member session':
      return is(403);
  }
}

/**
 * Requests that change state get a fresh world per caller, so one case cannot spoil the next;
 * a caller who must be refused changes nothing and shares the world of the reads (if it were let
 * through, its own case fails first). Routes that write nothing (RouteFixture.writesNothing) give
 * their state-changing callers one world of their own, checked after each request.
 */
const changesState = (route: DeclaredRoute, expectation: Check) =>
  !['GET', 'HEAD', 'OPTIONS'].includes(route.method) && !refusals.has(expectation);

/**
 * Makes in the seed world every resource and caller a state-changing case may ask for (fixtures
 * and keys are memoized, so the case finds them made).
 */
async function makeEveryFixture(world: World): Promise<void> {
  await world.invitation();
  await world.member();
  await world.formula();
  await world.reactor();
  await world.proxy();
  await world.childLink();
  await world.linkedChild();
  await world.memberToken();
  await world.nonMemberToken();
  for (const route of routes) {
    if (ROUTE_FIXTURES[fixtureKey(route)] === undefined) continue;
    for (const scenario of SCENARIOS) {
      if (changesState(route, expectationFor(route, scenario))) await headersFor(world, route, scenario);
    }
  }
}

let shared: World | undefined;
/** The world of the state-changing callers of routes that write nothing (see RouteFixture.writesNothing). */
let unwritten: World | undefined;
afterAll(async () => {
  await shared?.dispose();
  await unwritten?.dispose();
  await (await seeded)?.temp.dispose();
  await sandboxPool?.close();
});

describe('authorization matrix', () => {
  it('sees the routes of the server', () => {
    expect(routes.length).toBeGreaterThan(10);
    expect(routes.map((r) => `${r.method} ${r.url}`)).toContain('GET /applications/:id');
  });

  it('keeps every route but these behind a credential', () => {
    // A deliberate list: making another route public is a decision to take here, in review.
    const publicRoutes = routes.filter((r) => r.access === 'public').map(fixtureKey);
    expect([...new Set(publicRoutes)].sort()).toEqual(
      [
        // The console's files: a page that holds no data until its user signs in.
        'GET /console',
        'GET /console/*',
        // The API reference: the same document as /openapi.json, rendered.
        'GET /docs',
        'GET /docs/assets/:file',
        'GET /healthz',
        'GET /invitations/accept',
        'GET /openapi.json',
        'POST /auth/login',
        // The secret of the one-time sign-in link is the credential.
        'POST /console/sessions',
        // E-mail and password are the credential, as for POST /auth/login.
        'POST /console/sessions/login',
        // The secret of the e-mailed link is the credential.
        'POST /invitations/accept',
        // Proxy invocation checks SVC-API-KEY itself: a proxy with require_auth false needs none.
        ...['DELETE', 'GET', 'PATCH', 'POST', 'PUT'].flatMap((m) => [`${m} /proxy`, `${m} /proxy/*`]),
      ].sort(),
    );
  });

  it('has no fixture for a route that does not exist', () => {
    const registered = new Set(routes.map(fixtureKey));
    expect(Object.keys(ROUTE_FIXTURES).filter((key) => !registered.has(key))).toEqual([]);
  });

  for (const route of routes) {
    const name = `${route.method} ${route.url}`;
    const fixture = ROUTE_FIXTURES[fixtureKey(route)];
    if (fixture === undefined) {
      it(`${name} is covered`, () => {
        throw new Error(
          `${name} has no entry in ROUTE_FIXTURES (server/authorization-matrix.test.ts). Declare how to ` +
            'call it (path parameters naming resources of tenant A, a valid body); the expected answers ' +
            'follow from its config.access.',
        );
      });
      continue;
    }

    const declared =
      typeof route.access === 'object' ? requiredPermissions(route.access).join(' + ') : route.access;
    describe(`${name} (${declared})`, () => {
      it.each(SCENARIOS)('%s', async (scenario) => {
        const expectation = expectationFor(route, scenario);
        const ownWorld = changesState(route, expectation);
        const world = !ownWorld
          ? (shared ??= await World.fresh())
          : fixture.writesNothing === true
            ? (unwritten ??= await World.fresh())
            : await World.fresh();
        try {
          // The request first: its fixtures may create resources of tenant A.
          const request: InjectOptions = {
            method: route.method as InjectOptions['method'],
            url:
              fillPath(route.url, (await fixture.params?.(world)) ?? {}) +
              (fixture.query === undefined ? '' : `?${new URLSearchParams(fixture.query).toString()}`),
            headers: { ...fixture.headers, ...(await headersFor(world, route, scenario)) },
          };
          if (fixture.body !== undefined) {
            request.payload = (await fixture.body(world)) as InjectOptions['payload'];
          }
          const crossTenant = scenario === 'key of another tenant' && typeof route.access === 'object';
          const before = crossTenant ? await world.digestOfA() : undefined;
          const rowsBefore = world === unwritten ? await world.allRows() : undefined;
          const response = await world.server.app.inject(request);
          await expectation({ status: response.statusCode, body: response.body }, world);
          // Whatever it was answered, a request with another tenant's key left tenant A as it was.
          if (before !== undefined) expect(await world.digestOfA()).toBe(before);
          // A request said to write nothing wrote nothing: the next caller finds the same world.
          if (rowsBefore !== undefined) expect(await world.allRows()).toBe(rowsBefore);
        } finally {
          if (world !== shared && world !== unwritten) await world.dispose();
        }
      });
    });
  }
});
