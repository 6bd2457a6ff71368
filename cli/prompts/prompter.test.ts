import { describe, expect, it } from 'vitest';
import { VaultError } from '../../core/errors/catalogue.ts';
import { PROMPT_TRIES, askUntilValid, cancellable } from './prompter.ts';

describe('prompt cancellation', () => {
  it.each(['ExitPromptError', 'AbortPromptError', 'CancelPromptError'])(
    '%s becomes CANCELLED (exit 2)',
    async (name) => {
      const error = Object.assign(new Error('User force closed the prompt with SIGINT'), { name });
      const caught = await cancellable(() => Promise.reject(error)).catch((e: unknown) => e);
      expect(caught).toBeInstanceOf(VaultError);
      expect((caught as VaultError).code).toBe('CANCELLED');
      expect((caught as VaultError).exitCode).toBe(2);
    },
  );

  it('passes other errors and answers through', async () => {
    const other = new Error('other');
    await expect(cancellable(() => Promise.reject(other))).rejects.toBe(other);
    await expect(cancellable(async () => 'answer')).resolves.toBe('answer');
  });
});

describe('hidden prompts ask again after a rejected answer', () => {
  const digits = (value: string) =>
    /^\d{13,19}$/.test(value) ? undefined : 'The value must be 13 to 19 digits.';

  it('asks afresh (the answer is never the rejected text plus more) until valid', async () => {
    const typed = ['4242', '4242424242424242'];
    const problems: string[] = [];
    const value = await askUntilValid(
      async () => typed.shift() ?? '',
      digits,
      (p) => problems.push(p),
    );
    expect(value).toBe('4242424242424242');
    expect(problems).toEqual(['The value must be 13 to 19 digits.']);
  });

  it(`gives up after ${PROMPT_TRIES} tries with a usage error that names the rule`, async () => {
    let asked = 0;
    const caught = await askUntilValid(
      async () => {
        asked += 1;
        return 'x';
      },
      digits,
      () => undefined,
    ).catch((e: unknown) => e);
    expect(asked).toBe(PROMPT_TRIES);
    expect((caught as VaultError).code).toBe('USAGE');
    expect((caught as VaultError).message).toMatch(/13 to 19 digits .*gave up after 3 tries/);
  });
});
