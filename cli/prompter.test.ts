import { describe, expect, it } from 'vitest';
import { VaultError } from '../core/errors/catalogue.ts';
import { cancellable } from './prompter.ts';

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
