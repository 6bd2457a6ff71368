import type { MemberRole, Principal } from '../../core/access/principal.ts';
import type { Services } from '../../core/services-contract.ts';
import type { Reactor, ReactResult, SavedFormula } from '../../core/reactors/contract.ts';
import type { Member } from '../../core/tenancy/contract.ts';
import type { ApiAnswer, ApiRequestBody } from '../connection/api-types.ts';

/**
 * The vault's status as the operator route answers it (client/schema.d.ts); the status core reads
 * in this process has the same shape, one schema (core/vault/status-schema.ts) giving both.
 */
export type VaultStatus = ApiAnswer<'get', '/operator/vault/status'>;

/**
 * What `svc vault compact` and `svc vault backup` ask of the vault, wherever it is open: in this
 * process (with the key) or in the server that holds it.
 */
export interface VaultUpkeep {
  /** The vault file, its sizes, journal, key terms and lock holder (no key needed). */
  status(): Promise<VaultStatus>;
  /** Writes a fresh snapshot and empties the journal; the status after it. */
  compact(): Promise<VaultStatus>;
  /** A consistent, encrypted copy of the vault in `file` (on this host). */
  backup(file: string, force: boolean): Promise<{ sequence: number; bytes: number }>;
}

/** A private formula as the CLI writes it, whole (create, and update, which replaces it). */
export type FormulaInput = ApiRequestBody<'/reactor-formulas', 'post'> &
  ApiRequestBody<'/reactor-formulas/{id}', 'put'>;
export type ReactorCreateInput = ApiRequestBody<'/reactors', 'post'>;
export type ReactorUpdateInput = ApiRequestBody<'/reactors/{id}', 'put'>;
/** The args of an invocation: a JSON object. */
export type ReactArgs = NonNullable<ApiRequestBody<'/reactors/{id}/react', 'post'>['args']>;

/**
 * The services the data commands call, whoever runs them: the vault opened in this process
 * (cli/services/local.ts) or the server that holds it or any server given with --server
 * (cli/services/http/). A command never knows which: both take the same principals and answer
 * the same values, errors included.
 *
 * Principals name the tenant to act in; over HTTP with an API key the key fixes the tenant instead.
 */
export interface CliServices {
  readonly tenants: Pick<Services['tenants'], 'create' | 'get' | 'listAll'>;
  readonly users: Pick<Services['users'], 'findByEmail' | 'get' | 'setPassword'>;
  readonly applications: Pick<
    Services['applications'],
    'create' | 'list' | 'get' | 'update' | 'delete' | 'regenerate'
  >;
  readonly tokens: Pick<
    Services['tokens'],
    'create' | 'tokenize' | 'get' | 'list' | 'update' | 'delete' | 'search'
  >;
  readonly tokenAssociations: Pick<
    Services['tokenAssociations'],
    'associate' | 'dissociate' | 'children' | 'createChild'
  >;
  readonly logs: Pick<Services['logs'], 'list' | 'verify'>;
  readonly members: Pick<Services['members'], 'list' | 'remove'> & {
    /** The roles the CLI offers are the ones the API takes; core checks any string it is given. */
    updateRole(principal: Principal, memberId: string, role: MemberRole): Promise<Member>;
  };
  readonly invitations: Pick<
    Services['invitations'],
    'create' | 'list' | 'get' | 'resend' | 'delete' | 'accept'
  >;
  readonly usage: Services['usage'];
  /**
   * Formulas, reactors and invoking them (the sandbox stays wherever the vault is open). What the
   * CLI sends is what the API takes (core takes any value and checks it).
   */
  readonly reactors: Pick<
    Services['reactors'],
    'listFormulas' | 'getFormula' | 'deleteFormula' | 'list' | 'get' | 'delete'
  > & {
    createFormula(principal: Principal, input: FormulaInput): Promise<SavedFormula>;
    updateFormula(principal: Principal, id: string, input: FormulaInput): Promise<SavedFormula>;
    create(principal: Principal, input: ReactorCreateInput): Promise<Reactor>;
    update(principal: Principal, id: string, input: ReactorUpdateInput): Promise<Reactor>;
    react(principal: Principal, id: string, args: ReactArgs): Promise<ReactResult>;
  };
  readonly proxies: Services['proxies'];
  /** `{{ <token id> | filters }}` expressions replaced by token data as `token:read` shows it. */
  readonly detokenizer: { detokenize(principal: Principal, value: unknown): Promise<unknown> };
  /**
   * A counter that moves whenever anything is written, when one is cheap to read (the open vault's
   * commit sequence); undefined when it is not, and a follower must look every time.
   */
  changeCounter(): number | undefined;
}
