import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.ts';
import { envelopeTerm, openField, sealField } from './field-envelope.ts';
import { loadSodium } from './sodium.ts';
import type { TenantKeys } from './tenant-keys.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** A stored value is an envelope (`v1.<term>.<nonce>.<ciphertext>`) or plain text from before sealing. */
export function isSealed(stored: string): boolean {
  return /^v1\.[1-9][0-9]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(stored);
}

/**
 * Text that may hold secrets (proxy and reactor configuration, transform code) sealed at rest as a
 * field envelope under the tenant's data key, like token data. The context (entity, id and field)
 * is bound in the AAD, so an envelope copied to another row or field does not open. Values stored
 * before sealing are plain text: they open as they are and are sealed when next written or at the
 * next key rotation.
 */
export class SealedText {
  constructor(private readonly keys: TenantKeys) {}

  async seal(trx: Kysely<Database>, tenantId: string, context: string, plaintext: string): Promise<string> {
    const sodium = await loadSodium();
    const key = await this.keys.current(trx, tenantId, 'data');
    return sealField(sodium, key, tenantId, context, encoder.encode(plaintext));
  }

  async open(db: Kysely<Database>, tenantId: string, context: string, stored: string): Promise<string> {
    if (!isSealed(stored)) return stored;
    const sodium = await loadSodium();
    const key = await this.keys.forTerm(db, tenantId, 'data', envelopeTerm(stored));
    return decoder.decode(openField(sodium, key, tenantId, context, stored));
  }

  /** The value sealed under the tenant's active data key; null when it already is. */
  async reseal(
    trx: Kysely<Database>,
    tenantId: string,
    context: string,
    stored: string,
  ): Promise<string | null> {
    const current = await this.keys.current(trx, tenantId, 'data');
    if (isSealed(stored) && envelopeTerm(stored) === current.term) return null;
    return this.seal(trx, tenantId, context, await this.open(trx, tenantId, context, stored));
  }
}

/** The context of a reactor's sealed configuration. */
export function reactorConfigurationContext(reactorId: string): string {
  return `reactor:${reactorId}:configuration`;
}
