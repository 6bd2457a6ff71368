import { describe, expect, it } from 'vitest';
import { bridgeErrorText, refusalText } from './outcome';
import { passphraseStrength, STRENGTH_WORDS } from './strength';

describe('the start screen’s words', () => {
  it('rates passphrases by length and variety', () => {
    expect(STRENGTH_WORDS[passphraseStrength('abc')]).toBe('very weak');
    expect(STRENGTH_WORDS[passphraseStrength('correct horse battery')]).toBe('good');
    expect(STRENGTH_WORDS[passphraseStrength('Correct horse battery staple 42!')]).toBe('strong');
  });

  it('names the process that holds a vault, and its server', () => {
    expect(
      refusalText({
        ok: false,
        code: 'VAULT_LOCKED',
        message: 'The vault is in use.',
        holder: {
          pid: 42,
          host: 'laptop',
          startedAt: '2030-01-01T00:00:00.000Z',
          url: 'http://127.0.0.1:8080',
        },
      }),
    ).toBe(
      'The vault is in use. It is held by process 42 on laptop since 2030-01-01T00:00:00.000Z, serving http://127.0.0.1:8080.',
    );
    expect(refusalText({ ok: false, code: 'VAULT_WRONG_KEY', message: 'Wrong key.' })).toBe('Wrong key.');
  });

  it('drops Electron’s prefix from a refused call', () => {
    expect(
      bridgeErrorText(
        new Error("Error invoking remote method 'vault:unlock': Error: path must be an absolute path"),
      ),
    ).toBe('path must be an absolute path');
  });
});
