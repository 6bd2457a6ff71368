import { describe, expect, it } from 'vitest';
import { leadingConnectionFlags } from './leading-flags.ts';

describe('leading connection flags', () => {
  it('stand for SVC_SERVER and SVC_API_KEY before the command, and only there', () => {
    expect(leadingConnectionFlags(['--server', 'http://h:1', '--api-key=k', 'token', 'list'])).toEqual({
      argv: ['token', 'list'],
      env: { SVC_SERVER: 'http://h:1', SVC_API_KEY: 'k' },
    });
    expect(leadingConnectionFlags(['token', 'list', '--server', 'x'])).toEqual({
      argv: ['token', 'list', '--server', 'x'],
      env: {},
    });
  });
});
