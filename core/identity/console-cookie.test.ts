import { describe, expect, it } from 'vitest';
import {
  consoleCookieName,
  isConsoleCookieName,
  setsConsoleCookie,
  withoutConsoleCookies,
} from './console-cookie.ts';

describe('console cookie names', () => {
  it('carries the port, and the __Host- prefix over TLS', () => {
    expect(consoleCookieName(8080, false)).toBe('svc_console_8080');
    expect(consoleCookieName(null, false)).toBe('svc_console');
    expect(consoleCookieName(8443, true)).toBe('__Host-svc_console_8443');
    for (const name of ['svc_console', 'svc_console_1', '__Host-svc_console_65535', ' svc_console_9 '])
      expect(isConsoleCookieName(name), name).toBe(true);
    for (const name of [
      'svc_consoles',
      'svc_console_x',
      'session',
      '__Secure-svc_console',
      'svc_console_123456',
    ])
      expect(isConsoleCookieName(name), name).toBe(false);
  });

  it('keeps other cookies of a proxied request and drops the console sessions', () => {
    expect(withoutConsoleCookies('a=1; svc_console_8080=svcs_x; b=2')).toBe('a=1; b=2');
    expect(withoutConsoleCookies('__Host-svc_console=svcs_x;svc_console_1=y')).toBeNull();
    expect(withoutConsoleCookies('theirs=svc_console_8080')).toBe('theirs=svc_console_8080');
  });

  it('recognises a Set-Cookie that would plant a console session', () => {
    expect(setsConsoleCookie('svc_console_8080=svcs_planted; Path=/')).toBe(true);
    expect(setsConsoleCookie('__Host-svc_console=; Max-Age=0')).toBe(true);
    expect(setsConsoleCookie('theirs=1; Path=/')).toBe(false);
  });
});
