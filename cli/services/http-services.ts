import type { Principal } from '../../core/access/principal.ts';
import type { ChainReport } from '../../core/audit/audit-log.ts';
import {
  VaultError,
  errorCatalogue,
  isVaultError,
  type ErrorCode,
  type FieldErrors,
} from '../../core/errors/catalogue.ts';
import type { Page, Tenant, User } from '../../core/services-contract.ts';
import type { Proxy } from '../../core/proxies/index.ts';
import type { Reactor, ReactorFormula, ReactResult, SavedFormula } from '../../core/reactors/contract.ts';
import { formulaWarningOf } from '../../core/reactors/formula-warning.ts';
import type { Member } from '../../core/tenancy/contract.ts';
import type { TokenView } from '../../core/tokens/contract.ts';
import type { VaultStatus } from '../../core/vault/types.ts';
import type { ApiClient, Problem } from '../../client/api-client.ts';
import type { CliServices, VaultUpkeep } from './contract.ts';

/**
 * The command services over HTTP: each call is one request of the typed client (client/), and a
 * problem answer becomes the catalogue error it names, so commands print the same message and exit
 * with the same code as in-process.
 *
 * `operator`: the operator credential of the server holding this vault; the principal's tenant goes
 * in SVC-TENANT-ID. `key`: an API key (--server), whose own tenant and permissions apply.
 * `session`: a member signed in with `svc auth login`; the principal's tenant goes in SVC-TENANT-ID
 * and the member's role there applies.
 */
export type HttpAuthority = 'operator' | 'key' | 'session';

interface Answer {
  readonly data?: unknown;
  readonly error?: unknown;
  readonly response: Response;
}

function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(errorCatalogue, value);
}

/** The catalogue code of an answer without a `code` member: the first code of its status. */
function codeForStatus(status: number): ErrorCode {
  const found = (Object.keys(errorCatalogue) as ErrorCode[]).find(
    (code) => errorCatalogue[code].status === status,
  );
  return found ?? 'INTERNAL';
}

/**
 * The API's answer for an id that names nothing ("No such token.") is what core says with a bare
 * NOT_FOUND: the commands word that one themselves, naming what was looked for and where.
 */
const NOTHING_NAMED = /^No such [a-z ]+\.$/;

/**
 * The catalogue error a problem answer names. `named`: core words "not found" of this kind itself
 * (formulas, reactors, proxies), and the API's words are core's.
 */
export function errorOfProblem(response: Response, body: unknown, named = false): VaultError {
  const problem: Problem = typeof body === 'object' && body !== null ? (body as Problem) : {};
  const code = isErrorCode(problem.code) ? problem.code : codeForStatus(response.status);
  if (code === 'NOT_FOUND' && !named && NOTHING_NAMED.test(problem.detail ?? ''))
    return new VaultError('NOT_FOUND');
  const detail = problem.detail ?? problem.title ?? `The server answered ${response.status}.`;
  const errors = problem.errors as FieldErrors | undefined;
  return new VaultError(code, detail, errors === undefined ? undefined : { errors });
}

/** A request that got no answer: the transport names the server and why (cli/connection/http-transport.ts). */
function unreachable(error: unknown): VaultError {
  if (isVaultError(error)) return error;
  return new VaultError('SERVICE_UNAVAILABLE', 'The server could not be reached.', { cause: error });
}

/** The data of a typed client call; a problem answer thrown as the catalogue error it names. */
export async function answer<T>(request: Promise<Answer>, named = false): Promise<T> {
  let result: Answer;
  try {
    result = await request;
  } catch (error) {
    throw unreachable(error);
  }
  if (!result.response.ok) throw errorOfProblem(result.response, result.error, named);
  return result.data as T;
}

/** `answer` for what core names itself when it is not found (formulas, reactors, proxies). */
const answerNamed = <T>(request: Promise<Answer>): Promise<T> => answer<T>(request, true);

interface Envelope<T> {
  readonly pagination: { readonly total_items: number };
  readonly data: T[];
}

async function page<T>(request: Promise<Answer>): Promise<Page<T>> {
  const body = await answer<Envelope<T>>(request);
  return { total: body.pagination.total_items, items: body.data };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface StatusBody {
  path: string;
  journal_path: string;
  vault_id: string;
  created_at: string;
  format_version: number;
  key_source: 'passphrase' | 'key';
  key_terms: number[];
  snapshot_bytes: number;
  snapshot_sequence: number;
  snapshot_written_at: string;
  journal_bytes: number;
  journal_records: number;
  lock_holder: { pid: number; host: string; started_at: string; url?: string } | null;
}

function statusOf(body: StatusBody): VaultStatus {
  const holder = body.lock_holder;
  return {
    path: body.path,
    journalPath: body.journal_path,
    vaultId: body.vault_id,
    createdAt: body.created_at,
    formatVersion: body.format_version,
    keySource: body.key_source,
    keyTerms: body.key_terms,
    snapshotBytes: body.snapshot_bytes,
    snapshotSequence: body.snapshot_sequence,
    snapshotWrittenAt: body.snapshot_written_at,
    journalBytes: body.journal_bytes,
    journalRecords: body.journal_records,
    lockHolder:
      holder === null
        ? null
        : {
            pid: holder.pid,
            host: holder.host,
            startedAt: holder.started_at,
            ...(holder.url === undefined ? {} : { url: holder.url }),
          },
  };
}

interface ChainReportBody {
  ok: boolean;
  tenants: number;
  entries: number;
  first_break: { tenant_id: string; seq: number; entry_id: string | null; reason: string } | null;
}

const MERGE_PATCH = 'application/merge-patch+json';

/** Core's field order of a token view: `--json` prints tokens the same whichever way they came. */
const TOKEN_FIELDS: readonly (keyof TokenView)[] = [
  'id',
  'tenant_id',
  'type',
  'data',
  'mask',
  'fingerprint',
  'fingerprint_expression',
  'containers',
  'privacy',
  'metadata',
  'search_indexes',
  'created_by',
  'created_at',
  'modified_by',
  'modified_at',
  'expires_at',
];

/**
 * `body` with its fields in core's order (`fields`): `--json` prints an object the same whichever
 * way it came. Fields this client does not know yet still reach the caller, after the known ones.
 */
function inFieldOrder<T extends object>(body: T, fields: readonly (keyof T)[]): T {
  const view: Record<string, unknown> = {};
  const source = body as Record<string, unknown>;
  for (const field of fields) {
    const value = source[field as string];
    if (value !== undefined) view[field as string] = value;
  }
  for (const [field, value] of Object.entries(source)) if (!(field in view)) view[field] = value;
  return view as T;
}

function tokenView(body: TokenView): TokenView {
  return inFieldOrder(body, TOKEN_FIELDS);
}

const FORMULA_FIELDS: readonly (keyof ReactorFormula)[] = [
  'id',
  'name',
  'description',
  'type',
  'status',
  'icon',
  'code',
  'configuration',
  'request_parameters',
  'created_by',
  'created_at',
  'modified_by',
  'modified_at',
];

const REACTOR_FIELDS: readonly (keyof Reactor)[] = [
  'id',
  'tenant_id',
  'name',
  'formula',
  'configuration',
  'application',
  'created_by',
  'created_at',
  'modified_by',
  'modified_at',
];

function formulaOf(body: ReactorFormula): ReactorFormula {
  return inFieldOrder(body, FORMULA_FIELDS);
}

/** A reactor as core gives it: the API leaves out an application the reactor does not have. */
function reactorOf(body: Reactor): Reactor {
  return inFieldOrder(
    { ...body, formula: formulaOf(body.formula), application: body.application ?? null },
    REACTOR_FIELDS,
  );
}

/**
 * The headers the server adds to every answer; what is left of a reactor's own response are the
 * headers its code chose.
 */
const SERVER_HEADERS = new Set([
  'cache-control',
  'connection',
  'content-length',
  'date',
  'keep-alive',
  'transfer-encoding',
  'svc-trace-id',
]);

/** The content type the server gives a reactor's response whose code set none. */
const DEFAULT_JSON_TYPE = 'application/json; charset=utf-8';

/**
 * A reactor invocation's answer: 200 is the `{raw, tokens}` response; a problem is the error it
 * names; anything else is the response the code asked for (CustomHttpResponseError). A custom
 * response with status 200 cannot be told from a plain one here and is read as one.
 */
async function reactAnswer(request: Promise<Answer>): Promise<ReactResult> {
  let result: Answer;
  try {
    result = await request;
  } catch (error) {
    throw unreachable(error);
  }
  const { response } = result;
  // The client reads a 2xx as text (parseAs) and parses any other answer as JSON when it can.
  const sent = response.ok ? result.data : result.error;
  const body = typeof sent === 'string' ? bodyOfText(sent) : (sent ?? null);
  if (response.status === 200) return { kind: 'response', body: body as { raw?: unknown; tokens?: unknown } };
  const type = response.headers.get('content-type') ?? '';
  if (type.startsWith('application/problem+json')) throw errorOfProblem(response, body, true);
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (SERVER_HEADERS.has(name)) return;
    if (name === 'content-type' && value === DEFAULT_JSON_TYPE) return;
    headers[name] = value;
  });
  return { kind: 'custom-response', status: response.status, headers, body };
}

/** The body of a reactor's own response: JSON when it parses, else the text as sent. */
function bodyOfText(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** A member as core gives it: the API adds `picture` (always null) to its user. */
function memberOf(body: Member): Member {
  const { picture: _picture, ...user } = body.user as Member['user'] & { picture?: unknown };
  return { ...body, user };
}

async function tokenAnswer(request: Promise<Answer>): Promise<TokenView> {
  return tokenView(await answer<TokenView>(request));
}

async function tokenPage(request: Promise<Answer>): Promise<Page<TokenView>> {
  const result = await page<TokenView>(request);
  return { total: result.total, items: result.items.map(tokenView) };
}

const PROXY_FIELDS: readonly (keyof Proxy)[] = [
  'id',
  'key',
  'tenant_id',
  'name',
  'destination_url',
  'request_transform',
  'response_transform',
  'application_id',
  'configuration',
  'require_auth',
  'created_by',
  'created_at',
  'modified_by',
  'modified_at',
];

/** The API leaves a missing transform out; core (and so the CLI in process) says null. */
function proxyOf(body: Proxy): Proxy {
  return inFieldOrder(
    {
      ...body,
      request_transform: body.request_transform ?? null,
      response_transform: body.response_transform ?? null,
    },
    PROXY_FIELDS,
  );
}

const TENANT_FIELDS: readonly (keyof Tenant)[] = [
  'id',
  'owner_id',
  'name',
  'settings',
  'created_by',
  'created_at',
  'modified_by',
  'modified_at',
];

/** The API leaves `owner_id` out for a tenant without an owner (and so sends it last); core says null. */
function tenantOf(body: Tenant): Tenant {
  return inFieldOrder({ ...body, owner_id: body.owner_id ?? null }, TENANT_FIELDS);
}

/** The query of a name-and-ids filter (formulas, reactors, proxies). */
function nameFilter(filter: { readonly ids?: readonly string[]; readonly name?: string }): {
  id?: string[];
  name?: string;
} {
  return {
    ...(filter.ids === undefined ? {} : { id: [...filter.ids] }),
    ...(filter.name === undefined ? {} : { name: filter.name }),
  };
}

/** An empty id names nothing (in a URL it would name the collection instead). */
type NamedCollection = '/reactor-formulas' | '/reactors' | '/proxies';

function named(id: string): string {
  if (id === '') throw new VaultError('NOT_FOUND');
  return id;
}

export function httpCliServices(api: ApiClient, authority: HttpAuthority): CliServices {
  /**
   * Headers naming the tenant of `principal` (not for an API key: a key fixes its own tenant) and
   * the view the command asks for (masked unless --reveal): the server shows token data through it.
   */
  const inTenant = (principal: Principal): { headers: Record<string, string> } => ({
    headers: {
      ...(authority === 'key' ? {} : { 'svc-tenant-id': principal.tenantId }),
      ...(principal.view === undefined ? {} : { 'svc-view': principal.view }),
    },
  });

  /**
   * The tenant of the calling key. A key without `tenant:read` (a private key, say) still knows its
   * tenant's id from "who am I"; its name is then not ours to read, and the id stands in for it.
   */
  const ownTenant = async (): Promise<Tenant> => {
    try {
      return tenantOf(await answer<Tenant>(api.GET('/tenants/self', {})));
    } catch (error) {
      if (!isVaultError(error, 'FORBIDDEN')) throw error;
    }
    const self = await answer<{ tenant_id: string; created_at: string }>(api.GET('/applications/key', {}));
    return {
      id: self.tenant_id,
      owner_id: null,
      name: self.tenant_id,
      settings: {},
      created_by: null,
      created_at: self.created_at,
      modified_by: null,
      modified_at: null,
    };
  };

  /** No tenant has an id that is not a UUID; asked by name, the answer is "not found" (as in core). */
  const tenantNamed = (principal: Principal): void => {
    if (!UUID.test(principal.tenantId)) throw new VaultError('NOT_FOUND');
  };

  /**
   * Create, list (by ids and name), get, replace and delete of a resource the API names by id at
   * `<collection>/{id}`: formulas, reactors and proxies share every step, only the view differs.
   */
  const namedResource = <T>(collection: NamedCollection, view: (body: T) => T) => {
    const item = `${collection}/{id}` as const;
    const at = (principal: Principal, id: string) => ({
      ...inTenant(principal),
      params: { path: { id: named(id) } },
    });
    return {
      create: async (principal: Principal, input: unknown): Promise<T> =>
        view(await answerNamed<T>(api.POST(collection, { ...inTenant(principal), body: input as never }))),
      list: async (
        principal: Principal,
        filter: { readonly ids?: readonly string[]; readonly name?: string },
        { page: number, size }: { readonly page: number; readonly size: number },
      ): Promise<Page<T>> => {
        const result = await page<T>(
          api.GET(collection, {
            ...inTenant(principal),
            params: { query: { page: number, size, ...nameFilter(filter) } as never },
          }),
        );
        return { total: result.total, items: result.items.map(view) };
      },
      get: async (principal: Principal, id: string): Promise<T> =>
        view(await answerNamed<T>(api.GET(item, at(principal, id)))),
      update: async (principal: Principal, id: string, input: unknown): Promise<T> =>
        view(await answerNamed<T>(api.PUT(item, { ...at(principal, id), body: input as never }))),
      delete: (principal: Principal, id: string): Promise<void> =>
        answerNamed(api.DELETE(item, at(principal, id))),
    };
  };
  const formulas = namedResource<ReactorFormula>('/reactor-formulas', formulaOf);
  /** A saved formula and the warning the server sends beside it in `SVC-Warning` (code that does not compile). */
  const savedFormula = async (request: Promise<Answer>): Promise<SavedFormula> => {
    let warning: string | null = null;
    const formula = await answerNamed<ReactorFormula>(
      request.then((answered) => {
        warning = answered.response.headers.get('svc-warning');
        return answered;
      }),
    );
    return { formula: formulaOf(formula), warnings: warning === null ? [] : [formulaWarningOf(warning)] };
  };

  return {
    tenants: {
      async create(input) {
        const created = await answer<{
          tenant: Awaited<ReturnType<CliServices['tenants']['create']>>['tenant'];
          owner: Awaited<ReturnType<CliServices['tenants']['create']>>['owner'];
          application: Awaited<ReturnType<CliServices['tenants']['create']>>['application'];
        }>(
          api.POST('/operator/tenants', {
            body: {
              name: input.name,
              ...(input.ownerEmail === undefined ? {} : { owner_email: input.ownerEmail }),
              ...(input.ownerPassword === undefined ? {} : { owner_password: input.ownerPassword }),
              ...(input.withApplication === undefined ? {} : { with_application: input.withApplication }),
            },
          }),
        );
        const owner =
          created.owner === null
            ? null
            : {
                id: created.owner.id,
                email: created.owner.email,
                first_name: created.owner.first_name,
                last_name: created.owner.last_name,
              };
        return { tenant: tenantOf(created.tenant), owner, application: created.application };
      },
      async get(principal) {
        tenantNamed(principal);
        const tenant = tenantOf(await answer<Tenant>(api.GET('/tenants/self', inTenant(principal))));
        // A key answers for its own tenant whatever was asked: another tenant is not found.
        if (tenant.id !== principal.tenantId.toLowerCase()) throw new VaultError('NOT_FOUND');
        return tenant;
      },
      async listAll() {
        if (authority === 'operator')
          return (await answer<Tenant[]>(api.GET('/operator/tenants', {}))).map(tenantOf);
        // A member sees the tenants they belong to.
        if (authority === 'session') return (await answer<Tenant[]>(api.GET('/tenants', {}))).map(tenantOf);
        return [await ownTenant()];
      },
    },
    users: {
      async findByEmail(email) {
        const users = await answer<User[]>(api.GET('/operator/users', { params: { query: { email } } }));
        return users[0] ?? null;
      },
      async get(id) {
        const users = await answer<User[]>(api.GET('/operator/users', { params: { query: { id } } }));
        return users[0] ?? null;
      },
      setPassword: (id, password) =>
        answer(
          api.PUT('/operator/users/{id}/password', {
            params: { path: { id: named(id) } },
            body: { password },
          }),
        ),
    },
    applications: {
      create: (principal, input) =>
        answer(api.POST('/applications', { ...inTenant(principal), body: input as never })),
      list: (principal, filter, { page: number, size }) =>
        page(
          api.GET('/applications', {
            ...inTenant(principal),
            params: {
              query: {
                page: number,
                size,
                ...(filter.ids === undefined ? {} : { id: [...filter.ids] }),
                ...(filter.types === undefined ? {} : { type: [...filter.types] }),
              } as never,
            },
          }),
        ),
      get: (principal, id) =>
        answer(
          api.GET('/applications/{id}', { ...inTenant(principal), params: { path: { id: named(id) } } }),
        ),
      update: (principal, id, input) =>
        answer(
          api.PUT('/applications/{id}', {
            ...inTenant(principal),
            params: { path: { id: named(id) } },
            body: input as never,
          }),
        ),
      delete: (principal, id) =>
        answer(
          api.DELETE('/applications/{id}', { ...inTenant(principal), params: { path: { id: named(id) } } }),
        ),
      regenerate: (principal, id) =>
        answer(
          api.POST('/applications/{id}/regenerate', {
            ...inTenant(principal),
            params: { path: { id: named(id) } },
          }),
        ),
    },
    tokens: {
      async create(principal, request) {
        const result = await api.POST('/tokens', { ...inTenant(principal), body: request as never });
        const token = await tokenAnswer(Promise.resolve(result));
        // 201 made a token; 200 is an existing one found by deduplication.
        return { token, created: result.response.status === 201 };
      },
      tokenize: (principal, body) =>
        answer(api.POST('/tokenize', { ...inTenant(principal), body: body as never })),
      get: (principal, id) =>
        tokenAnswer(api.GET('/tokens/{id}', { ...inTenant(principal), params: { path: { id: named(id) } } })),
      list: (principal, filter, { page: number, size }) =>
        tokenPage(
          api.GET('/tokens', {
            ...inTenant(principal),
            params: {
              query: {
                page: number,
                size,
                ...(filter.ids === undefined ? {} : { id: [...filter.ids] }),
                ...(filter.types === undefined ? {} : { type: [...filter.types] }),
                ...(filter.metadata === undefined ? {} : { metadata: JSON.stringify(filter.metadata) }),
              } as never,
            },
          }),
        ),
      update: (principal, id, patch) =>
        tokenAnswer(
          api.PATCH('/tokens/{id}', {
            headers: { ...inTenant(principal).headers, 'content-type': MERGE_PATCH },
            params: { path: { id: named(id) } },
            body: patch as never,
          }),
        ),
      delete: (principal, id) =>
        answer(api.DELETE('/tokens/{id}', { ...inTenant(principal), params: { path: { id: named(id) } } })),
      search: (principal, request) =>
        tokenPage(api.POST('/tokens/search', { ...inTenant(principal), body: request as never })),
    },
    tokenAssociations: {
      associate: (principal, parentId, childId) =>
        answer(
          api.POST('/tokens/{parentId}/children/{childId}', {
            ...inTenant(principal),
            params: { path: { parentId: named(parentId), childId: named(childId) } },
          }),
        ),
      dissociate: (principal, parentId, childId) =>
        answer(
          api.DELETE('/tokens/{parentId}/children/{childId}', {
            ...inTenant(principal),
            params: { path: { parentId: named(parentId), childId: named(childId) } },
          }),
        ),
      async createChild(principal, parentId, request) {
        const result = await api.POST('/tokens/{parentId}/children', {
          ...inTenant(principal),
          params: { path: { parentId: named(parentId) } },
          body: request as never,
        });
        const token = await tokenAnswer(Promise.resolve(result));
        return { token, created: result.response.status === 201 };
      },
      children: (principal, parentId, filter, { page: number, size }) =>
        tokenPage(
          api.GET('/tokens/{parentId}/children', {
            ...inTenant(principal),
            params: {
              path: { parentId: named(parentId) },
              query: {
                page: number,
                size,
                ...(filter.ids === undefined ? {} : { id: [...filter.ids] }),
                ...(filter.types === undefined ? {} : { type: [...filter.types] }),
                ...(filter.metadata === undefined ? {} : { metadata: JSON.stringify(filter.metadata) }),
              } as never,
            },
          }),
        ),
    },
    logs: {
      list: (principal, filter, { page: number, size }) =>
        page(
          api.GET('/logs', {
            ...inTenant(principal),
            params: {
              query: {
                page: number,
                size,
                ...(filter.entityType === undefined ? {} : { entity_type: filter.entityType }),
                ...(filter.entityId === undefined ? {} : { entity_id: filter.entityId }),
                ...(filter.startDate === undefined ? {} : { start_date: filter.startDate }),
                ...(filter.endDate === undefined ? {} : { end_date: filter.endDate }),
              },
            },
          }),
        ),
      async verify(tenantId): Promise<ChainReport> {
        const body = await answer<ChainReportBody>(
          api.GET('/operator/logs/verify', {
            params: { query: tenantId === undefined ? {} : { tenant_id: tenantId } },
          }),
        );
        const broken = body.first_break;
        return {
          ok: body.ok,
          tenants: body.tenants,
          entries: body.entries,
          firstBreak:
            broken === null
              ? null
              : {
                  tenantId: broken.tenant_id,
                  seq: broken.seq,
                  entryId: broken.entry_id,
                  reason: broken.reason,
                },
        };
      },
    },
    members: {
      list: async (principal, filter, { page: number, size }) => {
        const result = await page<Member>(
          api.GET('/tenants/self/members', {
            ...inTenant(principal),
            params: {
              query: {
                page: number,
                size,
                ...(filter.userIds === undefined ? {} : { user_id: [...filter.userIds] }),
              },
            },
          }),
        );
        return { total: result.total, items: result.items.map(memberOf) };
      },
      remove: (principal, id) =>
        answer(
          api.DELETE('/tenants/self/members/{id}', {
            ...inTenant(principal),
            params: { path: { id: named(id) } },
          }),
        ),
      updateRole: async (principal, id, role) =>
        memberOf(
          await answer<Member>(
            api.PUT('/tenants/self/members/{id}', {
              ...inTenant(principal),
              params: { path: { id: named(id) } },
              body: { role } as never,
            }),
          ),
        ),
    },
    invitations: {
      create: (principal, input) =>
        answer(api.POST('/tenants/self/invitations', { ...inTenant(principal), body: input })),
      list: (principal, filter, { page: number, size }) =>
        page(
          api.GET('/tenants/self/invitations', {
            ...inTenant(principal),
            params: {
              query: {
                page: number,
                size,
                ...(filter.status === undefined ? {} : { status: filter.status }),
              },
            },
          }),
        ),
      get: (principal, id) =>
        answer(
          api.GET('/tenants/self/invitations/{id}', {
            ...inTenant(principal),
            params: { path: { id: named(id) } },
          }),
        ),
      resend: (principal, id) =>
        answer(
          api.POST('/tenants/self/invitations/{id}/resend', {
            ...inTenant(principal),
            params: { path: { id: named(id) } },
          }),
        ),
      delete: (principal, id) =>
        answer(
          api.DELETE('/tenants/self/invitations/{id}', {
            ...inTenant(principal),
            params: { path: { id: named(id) } },
          }),
        ),
      // The link's secret is the credential: the route is public, whoever the client signs in as.
      accept: async (input) => ({
        member: memberOf(await answer<Member>(api.POST('/invitations/accept', { body: input }))),
      }),
    },
    usage: {
      report: (principal) => answer(api.GET('/tenants/self/reports/usage', inTenant(principal))),
    },
    reactors: {
      createFormula: (principal, input) =>
        savedFormula(api.POST('/reactor-formulas', { ...inTenant(principal), body: input as never })),
      listFormulas: formulas.list,
      getFormula: formulas.get,
      updateFormula: (principal, id, input) =>
        savedFormula(
          api.PUT('/reactor-formulas/{id}', {
            ...inTenant(principal),
            params: { path: { id: named(id) } },
            body: input as never,
          }),
        ),
      deleteFormula: formulas.delete,
      ...namedResource<Reactor>('/reactors', reactorOf),
      react: (principal, id, args) =>
        reactAnswer(
          api.POST('/reactors/{id}/react', {
            ...inTenant(principal),
            params: { path: { id: named(id) } },
            body: { args } as never,
            parseAs: 'text',
          }),
        ),
    },
    proxies: namedResource<Proxy>('/proxies', proxyOf),
    detokenizer: {
      detokenize: (principal, value) =>
        answer(api.POST('/detokenize', { ...inTenant(principal), body: value as never })),
    },
    changeCounter: () => undefined,
  };
}

/** Vault upkeep through the operator routes of the server holding the vault. */
export function httpVaultUpkeep(api: ApiClient): VaultUpkeep {
  return {
    status: async () => statusOf(await answer<StatusBody>(api.GET('/operator/vault/status', {}))),
    compact: async () => statusOf(await answer<StatusBody>(api.POST('/operator/vault/compact', {}))),
    backup: (file, force) =>
      answer<{ sequence: number; bytes: number }>(
        api.POST('/operator/vault/backup', { body: { file, force } }),
      ),
  };
}
