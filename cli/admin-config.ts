import path from 'node:path';
import { envValue, type Env, type SvcConfig } from '../core/config/index.ts';
import { VaultError } from '../core/errors/catalogue.ts';
import type { AdminOptions } from '../core/tenancy/admin-contract.ts';

/**
 * Invitation mail and accept links (ServiceOptions.admin). core/config has no keys for these yet, so
 * they come from the environment only (no flags, no config file); to be folded into core/config's
 * one precedence later:
 *
 * - `SVC_SMTP_URL` set: mail goes through that SMTP server (nodemailer URL, e.g.
 *   `smtp://user:pass@mail.example.com:587`, `smtps://…` for TLS); else `.eml` files in `<home>/outbox`.
 * - `SVC_MAIL_FROM`: the sender (default `svc vault <svc@localhost>`).
 * - `SVC_PUBLIC_URL`: the server's public base URL (default `http://127.0.0.1:<port>`); links are
 *   `<base>/invitations/accept?token=…`.
 */
export const ADMIN_ENV = {
  smtpUrl: 'SVC_SMTP_URL',
  mailFrom: 'SVC_MAIL_FROM',
  publicUrl: 'SVC_PUBLIC_URL',
} as const;

export const DEFAULT_MAIL_FROM = 'svc vault <svc@localhost>';

/** The outbox folder used when no SMTP server is configured. */
export function outboxDir(config: Pick<SvcConfig, 'home'>): string {
  return path.join(config.home, 'outbox');
}

/** A bad setting fails like a bad SVC_PORT: one line naming the variable (never its credentials). */
function invalid(name: string, message: string): VaultError {
  return new VaultError('CONFIG_INVALID', `${name}: ${message}`);
}

function checkUrl(name: string, text: string, protocols: readonly string[]): void {
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    throw invalid(name, `not a URL; expected ${protocols.map((p) => `${p}//…`).join(' or ')}`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw invalid(name, `must start with ${protocols.map((p) => `${p}//`).join(' or ')}`);
  }
}

export function adminOptionsFrom(env: Env, config: Pick<SvcConfig, 'home' | 'port'>): AdminOptions {
  const from = envValue(env, ADMIN_ENV.mailFrom) ?? DEFAULT_MAIL_FROM;
  const smtpUrl = envValue(env, ADMIN_ENV.smtpUrl);
  if (smtpUrl !== undefined) checkUrl(ADMIN_ENV.smtpUrl, smtpUrl, ['smtp:', 'smtps:']);
  const publicUrl = envValue(env, ADMIN_ENV.publicUrl);
  if (publicUrl !== undefined) checkUrl(ADMIN_ENV.publicUrl, publicUrl, ['http:', 'https:']);
  const base = (publicUrl ?? `http://127.0.0.1:${config.port}`).replace(/\/+$/, '');
  return {
    mail:
      smtpUrl === undefined
        ? { kind: 'outbox', dir: outboxDir(config), from }
        : { kind: 'smtp', url: smtpUrl, from },
    acceptBaseUrl: `${base}/invitations/accept`,
  };
}

/**
 * For `svc start` and `svc serve`: the same mail settings, but without SVC_PUBLIC_URL the links are
 * left to the server, which uses the URL it actually listens on (right even with `--port 0`).
 */
export function serverAdminOptionsFrom(
  env: Env,
  config: Pick<SvcConfig, 'home' | 'port'>,
): Omit<AdminOptions, 'acceptBaseUrl'> & { readonly acceptBaseUrl?: string } {
  const { acceptBaseUrl, ...rest } = adminOptionsFrom(env, config);
  return envValue(env, ADMIN_ENV.publicUrl) === undefined ? rest : { ...rest, acceptBaseUrl };
}
