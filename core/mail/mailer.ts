/**
 * Outgoing mail (invitations). Two transports behind one small interface: SMTP through nodemailer
 * when a URL is configured, otherwise an outbox folder of `.eml` files (one per message) that a
 * person or a test can open. Both build the same MIME message with nodemailer.
 */
import { randomUUID } from 'node:crypto';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type nodemailer from 'nodemailer';
import type { SendMailOptions, Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import type StreamTransport from 'nodemailer/lib/stream-transport';

/** Where mail goes: SMTP (nodemailer) or an outbox folder of .eml files. */
export type MailTransportConfig =
  | { readonly kind: 'smtp'; readonly url: string; readonly from: string }
  | { readonly kind: 'outbox'; readonly dir: string; readonly from: string };

/**
 * Where a message went, as its sender may be told: the SMTP server's host and port (never its
 * credentials or options), or the outbox folder on the vault's machine.
 */
export interface MailDelivery {
  readonly transport: 'smtp' | 'outbox';
  /** `host:port` of the SMTP server, or the outbox folder. */
  readonly destination: string;
}

/**
 * nodemailer, loaded when the first message is sent: every `svc` process reaches this module
 * through the services, almost none of them sends mail, and loading nodemailer (with the network
 * and TLS modules it pulls in) would cost every process's start more CPU than many commands take.
 */
let loaded: typeof nodemailer | undefined;
function mailLibrary(): typeof nodemailer {
  loaded ??= createRequire(import.meta.url)('nodemailer') as typeof nodemailer;
  return loaded;
}

/** Connection, greeting and socket timeouts of the SMTP client (nodemailer's defaults are minutes). */
export const SMTP_TIMEOUT_MS = 10_000;

export interface MailMessage {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

export interface SentMail {
  readonly messageId: string;
  /** Outbox mode: the `.eml` file written. */
  readonly path?: string;
}

export interface Mailer {
  /** Where mail goes, for people (`smtp://host:port` without credentials, or the outbox folder). */
  readonly description: string;
  readonly delivery: MailDelivery;
  /** Resolves once the server accepted the message (or the file is written); rejects otherwise. */
  send(message: MailMessage): Promise<SentMail>;
}

/** The SMTP URL without user and password, for messages and logs. */
export function redactSmtpUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    parsed.search = '';
    return parsed.toString();
  } catch {
    return 'an SMTP server (the URL does not parse)';
  }
}

/** `host:port` of an SMTP URL (the port the scheme implies when it names none). */
export function smtpDestination(url: string): string {
  const parsed = new URL(url);
  const port = parsed.port === '' ? (parsed.protocol === 'smtps:' ? '465' : '587') : parsed.port;
  return `${parsed.hostname}:${port}`;
}

export function checkSmtpUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RangeError('The SMTP URL does not parse; expected smtp://[user:pass@]host[:port] or smtps://…');
  }
  if (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:')
    throw new RangeError('The SMTP URL must start with smtp:// or smtps://');
}

/**
 * The message as nodemailer composes it. The text part is written as it is (7bit, or 8bit when a
 * tenant name brings non-ASCII characters), never quoted-printable: QP breaks lines longer than 76
 * characters with `=` and encodes `=` itself, so the accept link would not survive `cat` or a copy
 * from a terminal. Lines stay far below SMTP's 998-octet limit (the text wraps itself, names are
 * capped). Only the HTML part, which nobody reads raw, is base64.
 */
export function composedMail(from: string, message: MailMessage): SendMailOptions {
  const body = message.text.replace(/\r?\n/g, '\r\n');
  const encoding = Buffer.byteLength(body) === body.length ? '7bit' : '8bit';
  return {
    from,
    to: message.to,
    subject: message.subject,
    text: {
      raw: `Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: ${encoding}\r\n\r\n${body}`,
    },
    html: { content: message.html, contentTransferEncoding: 'base64' },
  };
}

function smtpMailer(url: string, from: string): Mailer {
  checkSmtpUrl(url);
  // The URL carries host, port, TLS (smtps: = implicit TLS; smtp: upgrades with STARTTLS when
  // offered) and credentials; query parameters are nodemailer options (e.g. ?tls.rejectUnauthorized=false).
  let transport: Transporter<SMTPTransport.SentMessageInfo> | undefined;
  return {
    description: redactSmtpUrl(url),
    delivery: { transport: 'smtp', destination: smtpDestination(url) },
    async send(message) {
      transport ??= mailLibrary().createTransport({
        url,
        connectionTimeout: SMTP_TIMEOUT_MS,
        greetingTimeout: SMTP_TIMEOUT_MS,
        socketTimeout: SMTP_TIMEOUT_MS,
      });
      const info = await transport.sendMail(composedMail(from, message));
      return { messageId: info.messageId };
    },
  };
}

function fileStamp(date: Date): string {
  // 2026-01-01T00:00:00.000Z → 20260101T000000000Z: sorts by time, no characters Windows refuses.
  return date.toISOString().replace(/[-:.]/g, '');
}

function outboxMailer(dir: string, from: string, now: () => Date): Mailer {
  let transport: Transporter<StreamTransport.SentMessageInfo> | undefined;
  return {
    description: dir,
    delivery: { transport: 'outbox', destination: dir },
    async send(message) {
      transport ??= mailLibrary().createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
      const info = await transport.sendMail(composedMail(from, message));
      const bytes = info.message;
      if (!Buffer.isBuffer(bytes)) throw new Error('the outbox transport did not buffer the message');
      // The messages carry invitation secrets: only the vault's user may read them.
      const created = await mkdir(dir, { recursive: true, mode: 0o700 });
      if (created !== undefined) await chmod(dir, 0o700);
      const path = join(dir, `${fileStamp(now())}-${randomUUID()}.eml`);
      await writeFile(path, bytes, { mode: 0o600, flag: 'wx' });
      return { messageId: info.messageId, path };
    },
  };
}

export function createMailer(config: MailTransportConfig, now: () => Date = () => new Date()): Mailer {
  switch (config.kind) {
    case 'smtp':
      return smtpMailer(config.url, config.from);
    case 'outbox':
      return outboxMailer(config.dir, config.from, now);
  }
}
