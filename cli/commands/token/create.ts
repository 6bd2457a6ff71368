import { Command, Option } from 'commander';
import { VaultError } from '../../../core/errors/catalogue.ts';
import type { CreateTokenRequest } from '../../../core/tokens/contract.ts';
import { TOKEN_TYPE_NAMES, type TokenType } from '../../../core/tokens/index.ts';
import { choiceOption } from '../../options/values.ts';
import type { Runner } from '../../program/command-kit.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { writeRecord } from '../../output/table.ts';
import { writeJson, writeLine } from '../../output/write.ts';
import { tokenScopeAction, withTokens, type RawTokenScope, type TokenScopeOptions } from './common.ts';
import { tokenEntries } from './format.ts';
import {
  collectMetadata,
  collectRepeated,
  jsonSourceOf,
  parseJson,
  promptTokenData,
  promptTokenType,
  readJson,
  scrubbing,
  secretsOf,
  type JsonSource,
} from './input.ts';

export interface TokenCreateOptions extends TokenScopeOptions {
  /** Asked on a terminal when missing. */
  readonly type: TokenType | undefined;
  /** `--data` or `--data-file`; asked (hidden) on a terminal when missing. */
  readonly data: JsonSource | undefined;
  readonly id: string | undefined;
  readonly container: string | undefined;
  readonly metadata: Readonly<Record<string, string>> | undefined;
  /** As given: JSON, or a bare expression string. */
  readonly mask: string | undefined;
  readonly fingerprintExpression: string | undefined;
  readonly searchIndexes: readonly string[] | undefined;
  readonly expiresAt: string | undefined;
  /** `--dedupe` true, `--no-dedupe` false, neither: the tenant's setting. */
  readonly dedupe: boolean | undefined;
}

type RawTokenCreate = RawTokenScope & {
  type?: TokenType;
  data?: string;
  dataFile?: string;
  id?: string;
  container?: string;
  metadata?: Record<string, string>;
  mask?: string;
  fingerprintExpression?: string;
  searchIndex?: string[];
  expiresAt?: string;
  dedupe?: boolean;
};

const HELP_AFTER = `
The response shows the data masked (the type's mask, or --mask). Read it back with
'svc token get <id> --reveal'.

--data is visible to other local users (ps) and kept in shell history: prefer --data-file
(- for standard input) or, on a terminal, leave both out to be asked with hidden input.

Examples:
  svc token create --type card --data-file card.json --metadata customer=c-42
  echo '"123-45-6789"' | svc token create --type social_security_number --data-file -
  svc token create --type token --data '{"api_key":"…"}' --mask '{{ data.api_key | reveal_last: 4 }}'`;

/** `--dedupe` / `--no-dedupe`: shared by create and import. */
export function addDedupeOptions(command: Command): Command {
  return command
    .option('--dedupe', 'return an existing token with the same fingerprint instead of creating one')
    .option('--no-dedupe', "never deduplicate (default: the tenant's deduplicate_tokens setting)");
}

export function newTokenCreateCommand(
  deps: CliDeps,
  run: Runner<TokenCreateOptions> = (o) => runTokenCreate(deps, o),
): Command {
  const command = new Command('create')
    .description('Create a token; prints it with its data masked')
    .addOption(
      choiceOption('--type <type>', 'token type (asked on a terminal when missing)', TOKEN_TYPE_NAMES),
    )
    .addOption(
      new Option('--data <json>', 'the data as JSON, e.g. \'"text"\' or \'{"number":"…"}\'').conflicts(
        'dataFile',
      ),
    )
    .option('--data-file <file>', 'read the data as JSON from a file (- for standard input)')
    .option('--id <id>', "the token's id, or an alias expression (default: a random UUID)")
    .option('--container <path>', "container, e.g. /pci/high/ (default: the type's)")
    .option('--metadata <key=value>', 'metadata entry (never sensitive data); repeatable', collectMetadata)
    .option('--mask <json>', 'mask: an expression, or JSON (an object or array of expressions)')
    .option('--fingerprint-expression <expr>', "expression to fingerprint (default: the type's)")
    .option('--search-index <expr>', 'search index expression; repeatable', collectRepeated)
    .option('--expires-at <date>', 'expiry: ISO 8601 date-time (UTC without offset) or M/D/YYYY');
  addDedupeOptions(command);
  command.addHelpText('after', HELP_AFTER);
  return tokenScopeAction<RawTokenCreate>(command, deps, (scope, raw) =>
    run({
      ...scope,
      type: raw.type,
      data: jsonSourceOf(deps, raw.data, raw.dataFile, '--data'),
      id: raw.id,
      container: raw.container,
      metadata: raw.metadata,
      mask: raw.mask,
      fingerprintExpression: raw.fingerprintExpression,
      searchIndexes: raw.searchIndex,
      expiresAt: raw.expiresAt,
      dedupe: raw.dedupe,
    }),
  );
}

/** `--mask`: JSON when it parses; a bare expression (`{{ data | reveal_last: 4 }}`) otherwise. */
export function parseMask(text: string): unknown {
  try {
    JSON.parse(text);
  } catch {
    if (text.includes('{{') || text.includes('{%')) return text;
  }
  return parseJson(text, '--mask');
}

/** The request as the service takes it; absent flags stay absent so core applies its defaults. */
export function createRequest(
  options: TokenCreateOptions,
  type: TokenType,
  data: unknown,
): CreateTokenRequest {
  return {
    type,
    data,
    ...(options.id === undefined ? {} : { id: options.id }),
    ...(options.container === undefined ? {} : { containers: [options.container] }),
    ...(options.metadata === undefined ? {} : { metadata: { ...options.metadata } }),
    ...(options.mask === undefined ? {} : { mask: parseMask(options.mask) }),
    ...(options.fingerprintExpression === undefined
      ? {}
      : { fingerprint_expression: options.fingerprintExpression }),
    ...(options.searchIndexes === undefined ? {} : { search_indexes: [...options.searchIndexes] }),
    ...(options.expiresAt === undefined ? {} : { expires_at: options.expiresAt }),
    ...(options.dedupe === undefined ? {} : { deduplicate_token: options.dedupe }),
  };
}

/**
 * `--data 4242424242424242` parses as a JSON number, which no typed token takes and which loses
 * digits past 2^53: card numbers, account numbers and the like are text, so the flag says so.
 */
function checkBareNumber(value: unknown, options: TokenCreateOptions): void {
  if (typeof value !== 'number' || options.data?.kind !== 'text') return;
  const type = options.type ?? 'token';
  if (type === 'token' && Number.isSafeInteger(value)) return;
  const example = type === 'card' ? `'{"number":"…","expiration_month":12,"expiration_year":2030}'` : `'"…"'`;
  throw new VaultError(
    'USAGE',
    `--data is a JSON number; card and account numbers are text and need JSON quotes: --data ${example}`,
  );
}

export async function runTokenCreate(deps: CliDeps, options: TokenCreateOptions): Promise<void> {
  if (!deps.isTTY) {
    const missing = [
      ...(options.type === undefined ? ['--type'] : []),
      ...(options.data === undefined ? ['--data or --data-file'] : []),
    ];
    if (missing.length > 0) {
      throw new VaultError('USAGE', `missing ${missing.join(' and ')} (required when not on a terminal)`);
    }
  }
  // Given data is read and checked before the vault is unlocked; asked data after (a wrong
  // tenant should fail before anyone types a card number).
  const given = options.data === undefined ? undefined : { value: await readJson(deps, options.data) };
  if (given !== undefined) checkBareNumber(given.value, options);
  if (options.mask !== undefined) parseMask(options.mask);
  const result = await withTokens(deps, options, async ({ tokens, principal }) => {
    const type = options.type ?? (await promptTokenType(deps));
    const data = given === undefined ? await promptTokenData(deps, type) : given.value;
    return scrubbing(secretsOf(data), () => tokens.create(principal, createRequest(options, type, data)));
  });
  if (!result.created) {
    writeLine(deps.stderr, 'Duplicate: a token with the same fingerprint exists; it was returned instead.');
  }
  if (options.json) writeJson(deps.stdout, result.token);
  else writeRecord(deps, tokenEntries(result.token, 'Data (masked)'));
}
