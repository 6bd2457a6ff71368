import type { LightMyRequestResponse } from 'fastify';
import type { VaultServer } from '../types.ts';

/** The Host a test server's console is reached at (plain HTTP on loopback). */
export const CONSOLE_HOST = '127.0.0.1:8080';

/** POST /console/sessions/login with `credentials`, from the console's host unless `headers` say otherwise. */
export function postConsoleLogin(
  app: VaultServer,
  credentials: { readonly email: string; readonly password: string },
  headers: Record<string, string> = { host: CONSOLE_HOST },
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: '/console/sessions/login',
    headers,
    payload: { email: credentials.email, password: credentials.password },
  });
}
