import { VaultError } from '../core/errors/catalogue.ts';
import type { Prompter } from './deps.ts';

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

// Loaded on first prompt: most runs (scripts, CI, --json) never ask anything.
const prompts = () => import('@inquirer/prompts');

export function createInquirerPrompter(context: PromptContext): Prompter {
  return {
    password: (options) =>
      cancellable(async () =>
        (await prompts()).password(
          {
            // No `mask`: nothing is echoed, as echoing '*' would still reveal the length.
            message: options.message,
            // inquirer wants true or a message; ours returns undefined or a message.
            validate: (value) => options.validate?.(value) ?? true,
          },
          context,
        ),
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
  };
}
