import { CommanderError } from 'commander';
import { isVaultError, type FieldErrors, type VaultError } from '../../core/errors/catalogue.ts';
import type { CliDeps } from './deps.ts';
import { runnable } from '../output/runnable.ts';

export const EXIT = { ok: 0, error: 1, usage: 2, unavailable: 3, auth: 4 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * A command that has already said everything on stdout (e.g. `svc logs verify` reporting a broken
 * chain) and only needs a non-zero exit code: reported with no further line.
 */
export class QuietExit extends Error {
  readonly exitCode: ExitCode;

  constructor(exitCode: ExitCode) {
    super(`exit ${exitCode}`);
    this.name = 'QuietExit';
    this.exitCode = exitCode;
  }
}

/** Commander's own exits: help and version are successes, everything else it reports is a usage error. */
function commanderExit(error: CommanderError): ExitCode {
  if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return EXIT.ok;
  if (error.code === 'commander.help' && error.exitCode === 0) return EXIT.ok;
  return EXIT.usage;
}

/** "error: unknown option '--x'\n(Did you mean --y?)" → "unknown option '--x' (Did you mean --y?)". */
function commanderMessage(error: CommanderError): string {
  return error.message
    .replace(/^error:\s*/i, '')
    .split('\n')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .join(' ');
}

/**
 * Turns any failure into an exit code and at most one line on stderr, `svc: <message>`. Only
 * VaultError messages are shown: they are written to be safe to print. Anything else is a bug, shown
 * generically (with its stack under SVC_DEBUG=1), because a raw message might carry secret input.
 */
export function reportError(deps: CliDeps, error: unknown): ExitCode {
  const debug = deps.env.SVC_DEBUG === '1';
  if (error instanceof CommanderError) {
    const code = commanderExit(error);
    // Help text has already been written by commander; its "(outputHelp)" marker is no message.
    if (code !== EXIT.ok && error.code !== 'commander.help') {
      deps.stderr.write(`svc: ${commanderMessage(error)}\n`);
    }
    return code;
  }
  if (error instanceof QuietExit) return error.exitCode;
  if (isVaultError(error)) {
    deps.stderr.write(`svc: ${runnable(deps.env, describeError(error))}\n`);
    if (debug && error.stack !== undefined) deps.stderr.write(`${error.stack}\n`);
    return error.exitCode;
  }
  deps.stderr.write('svc: an unexpected error occurred (set SVC_DEBUG=1 for details)\n');
  if (debug)
    deps.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return EXIT.error;
}

/** The one line `reportError` prints for a VaultError (also used in summaries, e.g. of `svc token import`). */
export function describeError(error: VaultError): string {
  return oneLine(messageOf(error));
}

/**
 * A validation failure names its fields, so the one line says what to fix:
 * "invalid input: name: is required; permissions[0]: unknown permission 'x'".
 */
function messageOf(error: VaultError): string {
  const fields = fieldList(error.errors);
  if (fields === '') return error.message;
  const detail = error.message === error.title ? 'invalid input' : error.message.replace(/[.:]\s*$/, '');
  return `${detail}: ${fields}`;
}

function fieldList(errors: FieldErrors | undefined): string {
  if (errors === undefined) return '';
  return Object.entries(errors)
    .map(([field, messages]) => `${field}: ${messages.join(', ')}`)
    .join('; ');
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}
