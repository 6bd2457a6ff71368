import { VaultError, isVaultError } from '../../core/errors/catalogue.ts';
import type { CliDeps } from '../runtime/deps.ts';
import { writeLine } from '../output/write.ts';
import { PROMPT_TRIES } from './prompter.ts';

/**
 * A required value: the flag's when given; else, on a terminal, a prompt; else a usage error naming
 * the flag (scripts get exit 2, never a prompt they cannot answer).
 */
export async function valueOrPrompt(
  deps: CliDeps,
  value: string | undefined,
  flag: string,
  message: string,
): Promise<string> {
  if (value !== undefined && value.trim() !== '') return value.trim();
  if (value !== undefined) throw new VaultError('USAGE', `${flag} must not be empty`);
  if (!deps.isTTY) throw new VaultError('USAGE', `missing ${flag} (required when not on a terminal)`);
  const answer = (await deps.prompter.input({ message })).trim();
  if (answer === '') throw new VaultError('USAGE', `${flag} is required`);
  return answer;
}

/** Fails before anything is opened when a script left out a value a prompt would have asked for. */
export function requireUnlessTTY(deps: CliDeps, values: Readonly<Record<string, string | undefined>>): void {
  if (deps.isTTY) return;
  const missing = Object.entries(values)
    .filter(([, value]) => value === undefined)
    .map(([flag]) => flag);
  if (missing.length > 0) {
    throw new VaultError('USAGE', `missing ${missing.join(' and ')} (required when not on a terminal)`);
  }
}

/**
 * An existing password (signing in, proving an account): one line of standard input when asked
 * (the line break `echo` adds is not part of it), else a hidden prompt on a terminal.
 */
export async function readExistingPassword(
  deps: CliDeps,
  options: { readonly fromStdin: boolean; readonly stdinFlag: string; readonly message: string },
): Promise<string> {
  if (options.fromStdin) {
    const text = (await deps.readStdin()).replace(/\r?\n$/, '');
    if (text === '') throw new VaultError('USAGE', `no password on standard input (${options.stdinFlag})`);
    return text;
  }
  if (!deps.isTTY)
    throw new VaultError('USAGE', `a password needs a terminal to prompt; use ${options.stdinFlag}`);
  const password = await deps.prompter.password({ message: options.message });
  if (password === '') throw new VaultError('USAGE', 'a password is required');
  return password;
}

export interface NewPasswordOptions {
  /** Whose password, for the prompt: an e-mail address. */
  readonly who: string;
  /** Read it from standard input (one line; the line break `echo` adds is not part of it). */
  readonly fromStdin: boolean;
  /** The flag that reads standard input, for the error a script gets without one. */
  readonly stdinFlag: string;
  /** Optional passwords may be skipped: an empty answer, or no terminal and no stdin flag. */
  readonly optional: boolean;
}

/**
 * A new user password: standard input when asked, else typed twice at a hidden prompt. Returns
 * undefined when an optional password was skipped. The rules are core's: the prompt checks them as
 * you type, and the service checks every password again (a validation error naming the field).
 */
export async function readNewPassword(
  deps: CliDeps,
  options: NewPasswordOptions,
): Promise<string | undefined> {
  if (options.fromStdin) {
    const text = (await deps.readStdin()).replace(/\r?\n$/, '');
    if (text === '') throw new VaultError('USAGE', `no password on standard input (${options.stdinFlag})`);
    return text;
  }
  if (!deps.isTTY) {
    if (options.optional) return undefined;
    throw new VaultError('USAGE', `a password needs a terminal to prompt; use ${options.stdinFlag}`);
  }
  const { passwordProblems } = await import('../../core/identity/passwords.ts');
  const check = (value: string): string | undefined => {
    if (value === '') return options.optional ? undefined : 'Enter a password.';
    const [problem] = passwordProblems(value);
    return problem === undefined ? undefined : `The password ${problem}.`;
  };
  for (let attempt = 1; ; attempt += 1) {
    const first = await deps.prompter.password({
      message: options.optional
        ? `Password for ${options.who} (empty to skip):`
        : `New password for ${options.who}:`,
      validate: check,
    });
    if (first === '') return undefined;
    const again = await deps.prompter.password({ message: 'Repeat the password:' });
    if (again === first) return first;
    if (attempt >= PROMPT_TRIES) throw new VaultError('USAGE', 'the passwords do not match');
    writeLine(deps.stderr, 'The passwords do not match; type it again.');
  }
}

/**
 * Asks for a new secret twice and again when the two differ, a few times: a typo in a hidden field
 * should cost a retype, not the whole command. `ask` is the flow that prompts for both entries and
 * fails with USAGE when they differ; other failures pass through.
 */
export async function retryOnMismatch<T>(deps: CliDeps, ask: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await ask();
    } catch (error) {
      const mismatch = isVaultError(error, 'USAGE') && error.message.includes('do not match');
      if (!mismatch || !deps.isTTY || attempt >= PROMPT_TRIES) throw error;
      writeLine(deps.stderr, `${error.message.replace(/^the /, 'The ')}; type it again.`);
    }
  }
}
