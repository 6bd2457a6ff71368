/**
 * What every operation of the invitation service works with, made once per service
 * (`createInvitationService`) and handed to each operation, and the limits the service keeps.
 */
import type { SignInThrottle } from '../identity/sign-in-throttle.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { VaultHandle } from '../vault/types.ts';
import type { KdfLimits } from '../crypto/root-key.ts';

/** An invitation is valid this long after creation or the last resend. */
export const INVITATION_TTL_MS = 72 * 60 * 60 * 1000;

/** Page size cap of the invitations list. */
export const MAX_INVITATION_PAGE_SIZE = 100;

export interface InvitationServiceOptions {
  readonly mailer: Mailer;
  /** Read each time a link is made. */
  readonly acceptBaseUrl: () => string;
  readonly kdf: KdfLimits;
  /** The sign-in throttle: accepting for an existing account is a password guess like a sign-in. */
  readonly throttle: SignInThrottle;
}

export interface InvitationContext extends InvitationServiceOptions {
  readonly vault: VaultHandle;
}
