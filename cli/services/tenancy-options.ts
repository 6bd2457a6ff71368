import { outboxIn } from '../../core/mail/outbox-location.ts';
import { acceptBaseUrlAt, loopbackOrigin } from '../../core/tenancy/accept-link.ts';
import type { SvcConfig } from '../../core/config/index.ts';
import type { TenancyOptions } from '../../core/tenancy/contract.ts';
import type { ServerTenancyOptions } from '../../server/server-services.ts';

/**
 * Invitation mail and accept links (ServiceOptions.tenancy), from the effective configuration
 * (`smtpUrl`/SVC_SMTP_URL, `mailFrom`/SVC_MAIL_FROM, `publicUrl`/SVC_PUBLIC_URL; flags > env >
 * config file > defaults like every setting):
 *
 * - an SMTP URL set: mail goes through that server (nodemailer URL, e.g.
 *   `smtp://user:pass@mail.example.com:587`, `smtps://…` for TLS); else `.eml` files in `<home>/outbox`;
 * - links are `<publicUrl or http://127.0.0.1:<port>>/invitations/accept?token=…`.
 */
export type TenancyConfig = Pick<SvcConfig, 'home' | 'port' | 'smtpUrl' | 'mailFrom' | 'publicUrl'>;

/** The outbox folder used when no SMTP server is configured. */
export function outboxDir(config: Pick<SvcConfig, 'home'>): string {
  return outboxIn(config.home);
}

export function tenancyOptionsFrom(
  config: TenancyConfig,
): TenancyOptions & { readonly acceptBaseUrl: string } {
  const origin = config.publicUrl ?? loopbackOrigin(config.port);
  return {
    mail:
      config.smtpUrl === null
        ? { kind: 'outbox', dir: outboxDir(config), from: config.mailFrom }
        : { kind: 'smtp', url: config.smtpUrl, from: config.mailFrom },
    acceptBaseUrl: acceptBaseUrlAt(origin),
  };
}

/**
 * For `svc start` and `svc serve`: the same mail settings, but without SVC_PUBLIC_URL the links are
 * left to the server, which uses the URL it actually listens on (right even with `--port 0`).
 */
export function serverTenancyOptionsFrom(config: TenancyConfig): ServerTenancyOptions {
  const { acceptBaseUrl, ...rest } = tenancyOptionsFrom(config);
  return config.publicUrl === null ? rest : { ...rest, acceptBaseUrl };
}
