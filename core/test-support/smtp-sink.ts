import { readdir, readFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/**
 * The one SMTP sink of the tests, and the one reader of the accept links mailed through it or
 * written to an outbox folder.
 */

/** The secret of an accept link (`?token=svci_…`), as core makes them. */
const SECRET = /svci_[0-9A-Za-z]{43}/;

export interface ReceivedMail {
  /** The envelope's recipients. */
  readonly to: string[];
  readonly parsed: ParsedMail;
}

export interface SmtpSink {
  /** `smtp://127.0.0.1:<port>`, for SVC_SMTP_URL or the mail settings. */
  readonly url: string;
  /** Every message kept, in the order it arrived. */
  readonly received: ReceivedMail[];
  /** Resolves with the `count`-th message (1-based) once it arrived. */
  message(count: number, timeoutMs?: number): Promise<ReceivedMail>;
  /** Refuse (`true`) or accept every following message. */
  failing(refuse: boolean): void;
  /**
   * Holds every following message's final answer (a slow SMTP server) until the returned function
   * is called; `arrived` resolves when a held message is in.
   */
  hold(): { arrived: Promise<void>; release: () => void };
  close(): Promise<void>;
}

export interface SmtpSinkOptions {
  /** Waits this long before answering each message's data (a slow SMTP server); 0 by default. */
  readonly answerDelayMs?: number;
}

/** A real SMTP server in this process on 127.0.0.1, port 0, no TLS, no auth: it keeps every message. */
export async function startSmtpSink(options: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const answerDelayMs = options.answerDelayMs ?? 0;
  const received: ReceivedMail[] = [];
  const waiters: Array<() => void> = [];
  let refuse = false;
  let held: { arrived: () => void; released: Promise<void> } | null = null;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      if (refuse) {
        stream.resume();
        stream.on('end', () => {
          const error = new Error('Mailbox unavailable') as Error & { responseCode: number };
          error.responseCode = 550;
          callback(error);
        });
        return;
      }
      simpleParser(stream)
        .then(async (parsed) => {
          if (held !== null) {
            held.arrived();
            await held.released;
          }
          if (answerDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, answerDelayMs));
          received.push({ to: session.envelope.rcptTo.map((r) => r.address), parsed });
          for (const wake of waiters.splice(0)) wake();
          callback();
        })
        .catch((error: unknown) => callback(error instanceof Error ? error : new Error(String(error))));
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    async message(count, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`mail #${count} did not arrive (got ${received.length})`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return received[count - 1]!;
    },
    failing(value) {
      refuse = value;
    },
    hold() {
      let arrived!: () => void;
      let release!: () => void;
      const arrival = new Promise<void>((resolve) => (arrived = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      held = { arrived, released };
      return {
        arrived: arrival,
        release: () => {
          held = null;
          release();
        },
      };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The accept link in a message's plain text, and its secret. */
export function acceptLinkIn(text: string): { link: string; secret: string } {
  const link = /https?:\/\/\S+token=svci_[0-9A-Za-z]{43}/.exec(text)?.[0];
  const secret = link === undefined ? undefined : SECRET.exec(link)?.[0];
  if (link === undefined || secret === undefined) throw new Error(`no accept link in the mail:\n${text}`);
  return { link, secret };
}

/** The accept link in a message's plain-text part, and its secret. */
export function acceptLinkOf(mail: ParsedMail | undefined): { link: string; secret: string } {
  return acceptLinkIn(mail?.text ?? '');
}

/** The `.eml` files of an outbox folder, oldest first, parsed. */
export async function outboxMessages(dir: string): Promise<ParsedMail[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((name) => name.endsWith('.eml')).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return Promise.all(names.map(async (name) => simpleParser(await readFile(join(dir, name)))));
}

/** A port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
