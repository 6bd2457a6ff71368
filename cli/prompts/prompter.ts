import { VaultError } from '../../core/errors/catalogue.ts';
import type { Prompter } from '../runtime/deps.ts';

interface PromptContext {
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
}

/** Ctrl-C (ExitPromptError) and aborts become CANCELLED, so they exit 2 like any other cancel. */
export async function cancellable<T>(prompt: () => Promise<T>): Promise<T> {
  try {
    return await prompt();
  } catch (error) {
    if (
      error instanceof Error &&
      ['ExitPromptError', 'AbortPromptError', 'CancelPromptError'].includes(error.name)
    ) {
      throw new VaultError('CANCELLED', 'cancelled');
    }
    throw error;
  }
}

/** How often a hidden prompt asks again after a rejected answer before giving up. */
export const PROMPT_TRIES = 3;

/**
 * Asks until `validate` accepts the answer, at most `tries` times. Each try starts from an empty
 * field: a masked field that kept the rejected text would make the retyped value wrong in a way the
 * person cannot see. `report` shows why an answer was refused (never the answer itself).
 */
export async function askUntilValid(
  ask: () => Promise<string>,
  validate: ((value: string) => string | undefined) | undefined,
  report: (problem: string) => void,
  tries: number = PROMPT_TRIES,
): Promise<string> {
  for (let attempt = 1; ; attempt += 1) {
    const value = await ask();
    const problem = validate?.(value);
    if (problem === undefined) return value;
    if (attempt >= tries)
      throw new VaultError('USAGE', `${problem.replace(/\.$/, '')} (gave up after ${tries} tries)`);
    report(problem);
  }
}

// Loaded on first prompt: most runs (scripts, CI, --json) never ask anything.
const prompts = () => import('@inquirer/prompts');

export function createInquirerPrompter(context: PromptContext): Prompter {
  return {
    password: (options) =>
      askUntilValid(
        () =>
          cancellable(async () =>
            // No `mask`: nothing is echoed, as echoing '*' would still reveal the length. No
            // inquirer `validate` either: it keeps the rejected text in the hidden field.
            (await prompts()).password({ message: options.message }, context),
          ),
        options.validate,
        (problem) => context.output.write(`> ${problem}\n`),
      ),
    input: (options) =>
      cancellable(async () =>
        (await prompts()).input(
          options.default === undefined ? { message: options.message } : options,
          context,
        ),
      ),
    confirm: (options) =>
      cancellable(async () =>
        (await prompts()).confirm(
          options.default === undefined ? { message: options.message } : options,
          context,
        ),
      ),
    select: (options) =>
      cancellable(async () =>
        (await prompts()).select(
          {
            message: options.message,
            choices: options.choices.map((choice) => ({ ...choice })),
            ...(options.default === undefined ? {} : { default: options.default }),
          },
          context,
        ),
      ),
    checkbox: (options) =>
      cancellable(async () =>
        (await prompts()).checkbox(
          {
            message: options.message,
            choices: options.choices.map((choice) => ({ ...choice })),
            required: options.required === true,
            pageSize: 12,
          },
          context,
        ),
      ),
  };
}
