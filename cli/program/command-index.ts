import type { Command } from 'commander';
import type { CliDeps } from '../runtime/deps.ts';

/**
 * The top-level verbs of `svc`, each with what the root help shows for it and a loader for its
 * module. Only the verb being run is imported (its module pulls in the vault, the server, sql.js…),
 * so `svc --help` and `svc <verb>` load what they need and no more. `command-index.test.ts`
 * checks every entry against the command its loader builds, so the help text has one source.
 */
export interface Verb {
  readonly name: string;
  /** The left column of the root help (commander's subcommand term, e.g. `logs [options]`). */
  readonly term: string;
  readonly description: string;
  readonly load: () => Promise<(deps: CliDeps) => Command>;
}

export const VERBS: readonly Verb[] = [
  {
    name: 'start',
    term: 'start [options]',
    description:
      'Run the embedded default: create the vault and its key file on first run, then serve the API',
    load: async () => (await import('../commands/start/start.ts')).newStartCommand,
  },
  {
    name: 'serve',
    term: 'serve [options]',
    description: 'Serve the API over an existing vault (never creates one)',
    load: async () => (await import('../commands/serve/serve.ts')).newServeCommand,
  },
  {
    name: 'init',
    term: 'init [options]',
    description:
      'Create a new vault (a generated key file unless --passphrase or --key-file says otherwise); with --database, set one up in an empty PostgreSQL database',
    load: async () => (await import('../commands/init/init.ts')).newInitCommand,
  },
  {
    name: 'config',
    term: 'config [options]',
    description:
      'Show the effective configuration and where each value comes from (flags > env > config file > defaults)',
    load: async () => (await import('../commands/config/config.ts')).newConfigCommand,
  },
  {
    name: 'status',
    term: 'status [options]',
    description:
      'Show where commands would act: the vault file, who holds it, the server and the mode (no key needed)',
    load: async () => (await import('../commands/status/status.ts')).newStatusCommand,
  },
  {
    name: 'auth',
    term: 'auth',
    description:
      'Sign in to a server as a member (e-mail and password) for --server, see who is signed in, sign out',
    load: async () => (await import('../commands/auth/auth.ts')).newAuthCommand,
  },
  {
    name: 'vault',
    term: 'vault',
    description: 'Inspect and maintain the vault file; move it to PostgreSQL and back',
    load: async () => (await import('../commands/vault/vault.ts')).newVaultCommand,
  },
  {
    name: 'tenant',
    term: 'tenant',
    description:
      'Create and inspect tenants (each with its owner, members and applications); choose the one to act in',
    load: async () => (await import('../commands/tenant/tenant.ts')).newTenantCommand,
  },
  {
    name: 'member',
    term: 'member',
    description: "List, update and remove a tenant's members (new members join through 'svc invitation')",
    load: async () => (await import('../commands/member/member.ts')).newMemberCommand,
  },
  {
    name: 'invitation',
    term: 'invitation',
    description: 'Invite people by e-mail to a tenant, and accept invitations',
    load: async () => (await import('../commands/invitation/invitation.ts')).newInvitationCommand,
  },
  {
    name: 'app',
    term: 'app',
    description: 'Manage applications and their API keys',
    load: async () => (await import('../commands/app/app.ts')).newAppCommand,
  },
  {
    name: 'proxy',
    term: 'proxy',
    description: 'Manage pre-configured proxies to third-party HTTPS APIs',
    load: async () => (await import('../commands/proxy/proxy.ts')).newProxyCommand,
  },
  {
    name: 'tokenize',
    term: 'tokenize [options] [json]',
    description: 'Tokenize any JSON; prints the response JSON (tokens and ids in place of values)',
    load: async () => (await import('../commands/tokenize/tokenize.ts')).newTokenizeCommand,
  },
  {
    name: 'token',
    term: 'token',
    description: 'Create, read, list, update, delete, search, import and link tokens',
    load: async () => (await import('../commands/token/token.ts')).newTokenCommand,
  },
  {
    name: 'detokenize',
    term: 'detokenize [options] [json]',
    description: 'Replace {{ <token id> }} expressions in JSON by token data; prints JSON',
    load: async () => (await import('../commands/detokenize/detokenize.ts')).newDetokenizeCommand,
  },
  {
    name: 'formula',
    term: 'formula',
    description: 'Manage reactor formulas (JavaScript run by reactors)',
    load: async () => (await import('../commands/formula/formula.ts')).newFormulaCommand,
  },
  {
    name: 'reactor',
    term: 'reactor',
    description: 'Manage and invoke reactors',
    load: async () => (await import('../commands/reactor/reactor.ts')).newReactorCommand,
  },
  {
    name: 'user',
    term: 'user',
    description: 'Manage the people who sign in to the console',
    load: async () => (await import('../commands/user/user.ts')).newUserCommand,
  },
  {
    name: 'logs',
    term: 'logs [options]',
    description: "Show a tenant's audit log, newest first",
    load: async () => (await import('../commands/logs/logs.ts')).newLogsCommand,
  },
  {
    name: 'console',
    term: 'console [options]',
    description:
      'Open the web console in the default browser: the server holding the vault, or a new one (signed in with a one-time link)',
    load: async () => (await import('../commands/console/console.ts')).newConsoleCommand,
  },
  {
    name: 'completion',
    term: 'completion <shell>',
    description: 'Print a shell completion script (bash, zsh or fish)',
    load: async () => (await import('../commands/completion/completion.ts')).newCompletionCommand,
  },
];

/**
 * The verbs an invocation needs built in full: the one it runs (`svc tenant list`, or the topic of
 * `svc help tenant`), every verb for `svc completion <shell>` (its script lists the whole tree), none for
 * `svc`, `svc --help` or `svc --version`.
 */
export function verbsNeeded(argv: readonly string[]): 'all' | ReadonlySet<string> {
  const words = argv.filter((arg) => !arg.startsWith('-'));
  const [first, second] = words;
  if (first === undefined) return new Set();
  // The ids the completion scripts ask for need only the completion verb.
  if (first === 'completion') return second === 'ids' ? new Set([first]) : 'all';
  if (first === 'help') return new Set(second === undefined ? [] : [second]);
  return new Set([first]);
}
