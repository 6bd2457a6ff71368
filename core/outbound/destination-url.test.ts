import { describe, expect, it } from 'vitest';
import { DESTINATION_URL_MAX, checkedDestination, destinationUrlProblem } from './destination-url.ts';

describe('destination URLs', () => {
  it('accepts an https URL naming its host by DNS name', () => {
    expect(destinationUrlProblem('https://api.example/v1/')).toBeNull();
    const url = new URL('https://api.example/v1/charges?x=1');
    expect(checkedDestination(url)).toBe(url);
    expect(checkedDestination('https://api.example/v1')).toEqual(new URL('https://api.example/v1'));
  });

  it('refuses the same URLs whether given as text or parsed', () => {
    const refused: Array<[string, string]> = [
      ['http://api.example/', 'must use https://'],
      ['https://127.0.0.1/', 'must name the host by DNS name, not an IP address'],
      ['https://[::1]/', 'must name the host by DNS name, not an IP address'],
      ['https://0x7f.1/', 'must name the host by DNS name, not an IP address'],
      ['https://user:pass@api.example/', 'must not carry a user name or password'],
      [
        `https://api.example/${'a'.repeat(DESTINATION_URL_MAX)}`,
        `must be at most ${DESTINATION_URL_MAX} characters`,
      ],
    ];
    for (const [text, problem] of refused) {
      expect(destinationUrlProblem(text)).toBe(problem);
      expect(checkedDestination(new URL(text))).toBe(problem);
    }
    expect(destinationUrlProblem('api.example/v1')).toBe('must be an absolute https:// URL');
  });
});
