import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import {
  APPLICATION_TYPES,
  PERMISSIONS,
  permissionsFor,
  type ApplicationType,
} from '../../../core/access/permissions.ts';
import type { AccessRule } from '../../../core/access/rules.ts';
import { VaultError, validationError, type FieldErrors } from '../../../core/errors/catalogue.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { completesWith } from '../../options/completion-values.ts';
import { collectList } from '../../options/values.ts';

/**
 * Permissions and access rules from flags: `--permission` (repeatable, or comma-separated),
 * `--rule '<json>'` (repeatable) or `--rules-file rules.json`. Their meaning is checked by core
 * (a VALIDATION_FAILED naming the fields); here only their shape, so core always gets arrays.
 */
export type RulesSource =
  | { readonly kind: 'file'; readonly path: string }
  | { readonly kind: 'inline'; readonly rules: readonly unknown[] };

export interface GrantOptions {
  /** Undefined when no --permission was given (update keeps the current ones). */
  readonly permissions: readonly string[] | undefined;
  /** --all-permissions: every permission the application's type may hold. */
  readonly allPermissions: boolean;
  /** Undefined when neither --rule nor --rules-file was given. */
  readonly rules: RulesSource | undefined;
}

export interface RawGrantOptions {
  permission?: string[];
  allPermissions?: boolean;
  rule?: unknown[];
  rulesFile?: string;
}

function parseRule(text: string, previous: unknown[] | undefined): unknown[] {
  let rule: unknown;
  try {
    rule = JSON.parse(text);
  } catch {
    throw new InvalidArgumentError('Not valid JSON (an access rule is one JSON object).');
  }
  return [...(previous ?? []), rule];
}

export function addGrantOptions(command: Command): Command {
  return command
    .addOption(
      completesWith(
        new Option('--permission <name>', 'permission to grant; repeat or separate with commas')
          .argParser(collectList)
          .conflicts('allPermissions'),
        PERMISSIONS.map((p) => p.type),
      ),
    )
    .option('--all-permissions', 'grant every permission the application type may hold')
    .addOption(
      new Option(
        '--rule <json>',
        'access rule as JSON, e.g. \'{"priority":1,"container":"/pci/","permissions":["token:read"],"transform":"mask","description":"PCI"}\'; repeatable',
      )
        .argParser(parseRule)
        .conflicts('rulesFile'),
    )
    .addOption(
      new Option(
        '--rules-file <file>',
        'JSON file with an array of access rules (or {"rules": [...]})',
      ).conflicts('rule'),
    );
}

export function grantOptionsFrom(deps: CliDeps, raw: RawGrantOptions): GrantOptions {
  let rules: RulesSource | undefined;
  if (raw.rulesFile !== undefined) rules = { kind: 'file', path: path.resolve(deps.cwd, raw.rulesFile) };
  else if (raw.rule !== undefined) rules = { kind: 'inline', rules: raw.rule };
  return { permissions: raw.permission, allPermissions: raw.allPermissions === true, rules };
}

/** The permissions to send: --all-permissions expands to the type's catalogue. */
export function permissionsToGrant(
  options: GrantOptions,
  type: ApplicationType,
): readonly string[] | undefined {
  return options.allPermissions ? permissionsFor(type) : options.permissions;
}

async function readRulesFile(file: string): Promise<unknown[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new VaultError('USAGE', `cannot read the rules file ${file} (${code})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new VaultError('USAGE', `the rules file ${file} is not valid JSON`);
  }
  if (Array.isArray(parsed)) return parsed;
  if (typeof parsed === 'object' && parsed !== null && Array.isArray((parsed as { rules?: unknown }).rules)) {
    return (parsed as { rules: unknown[] }).rules;
  }
  throw new VaultError(
    'USAGE',
    `the rules file ${file} must hold a JSON array of rules (or {"rules": [...]})`,
  );
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The rules as core takes them; shape errors are field errors like core's, so they read alike. */
export async function loadRules(source: RulesSource): Promise<AccessRule[]> {
  const rules = source.kind === 'file' ? await readRulesFile(source.path) : source.rules;
  const errors: FieldErrors = {};
  rules.forEach((rule, i) => {
    if (!isObject(rule)) errors[`rules[${i}]`] = ['must be a JSON object'];
    else if (!Array.isArray(rule.permissions) || !rule.permissions.every((p) => typeof p === 'string'))
      errors[`rules[${i}].permissions`] = ['must be an array of permission names'];
    else if (rule.conditions !== undefined && rule.conditions !== null && !Array.isArray(rule.conditions))
      errors[`rules[${i}].conditions`] = ['must be an array of conditions'];
  });
  if (Object.keys(errors).length > 0) throw validationError(errors);
  return rules as AccessRule[];
}

/** Words of `text` on lines of at most `width` characters, each line after the first indented. */
function wrap(text: string, width: number, indent: string): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = `${indent}${word}`;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  lines.push(line);
  return lines.join('\n');
}

/** Which permissions each type may hold, for the help of `app create` and `app update`. */
export function permissionsHelp(): string {
  const lines = APPLICATION_TYPES.map((type) =>
    wrap(`  ${type}: ${permissionsFor(type).join(', ')}`, 100, '    '),
  );
  return `\nPermissions by application type:\n${lines.join('\n')}\nManagement applications cannot have access rules.`;
}
