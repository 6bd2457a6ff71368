import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A real SMTP server in this test process on 127.0.0.1, port 0 (no TLS, no auth), keeping every message. */
export interface TestSmtp {
  /** `smtp://127.0.0.1:<port>`, for SVC_SMTP_URL. */
  readonly url: string;
  readonly received: ParsedMail[];
  close(): Promise<void>;
}

export async function startTestSmtp(): Promise<TestSmtp> {
  const received: ParsedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          received.push(parsed);
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
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The accept link in a message's plain text, and the secret it carries. */
export function acceptLinkIn(text: string): { link: string; secret: string } {
  const link = /https?:\/\/\S+\?token=\S+/.exec(text)?.[0];
  if (link === undefined) throw new Error('no accept link in the message');
  const secret = new URL(link).searchParams.get('token');
  if (secret === null) throw new Error('the accept link has no token');
  return { link, secret };
}
