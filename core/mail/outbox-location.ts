import { join } from 'node:path';

/**
 * The folder `.eml` files go to when no SMTP server is configured: `outbox` in `dir`. Apart from the
 * mailer so that naming the folder does not load the SMTP client.
 */
export function outboxIn(dir: string): string {
  return join(dir, 'outbox');
}
