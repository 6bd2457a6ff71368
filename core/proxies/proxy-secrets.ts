import type { Kysely } from 'kysely';
import { envelopeTerm, openField, sealField } from '../crypto/field-envelope.ts';
import { loadSodium } from '../crypto/sodium.ts';
import type { TenantKeys } from '../crypto/tenant-keys.ts';
import type { Database } from '../storage/schema.ts';

/**
 * The parts of a proxy that may hold secrets (its `configuration` map and its transform code) are
 * sealed at rest as field envelopes under the tenant's data key, like token data. The AAD names the
 * proxy and the field, so an envelope copied to another proxy or another field does not open.
 * Rows written before sealing hold the plain text; they open as they are and are sealed on their
 * next update or key rotation.
 */
export type SealedProxyField = 'configuration' | 'request_transform' | 'response_transform';

export const SEALED_PROXY_FIELDS: readonly SealedProxyField[] = [
  'configuration',
  'request_transform',
  'response_transform',
];

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** The envelope's context: the proxy and the field it belongs to. */
function context(proxyId: string, field: SealedProxyField): string {
  return `proxy:${proxyId}:${field}`;
}

/** A stored value is an envelope (`v1.<term>.<nonce>.<ciphertext>`) or plain text from before sealing. */
export function isSealed(stored: string): boolean {
  return /^v1\.[1-9][0-9]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(stored);
}

export class ProxySecrets {
  constructor(private readonly keys: TenantKeys) {}

  async seal(
    trx: Kysely<Database>,
    tenantId: string,
    proxyId: string,
    field: SealedProxyField,
    plaintext: string,
  ): Promise<string> {
    const sodium = await loadSodium();
    const key = await this.keys.current(trx, tenantId, 'data');
    return sealField(sodium, key, tenantId, context(proxyId, field), encoder.encode(plaintext));
  }

  async open(
    db: Kysely<Database>,
    tenantId: string,
    proxyId: string,
    field: SealedProxyField,
    stored: string,
  ): Promise<string> {
    if (!isSealed(stored)) return stored;
    const sodium = await loadSodium();
    const key = await this.keys.forTerm(db, tenantId, 'data', envelopeTerm(stored));
    return decoder.decode(openField(sodium, key, tenantId, context(proxyId, field), stored));
  }

  /** The value sealed under the tenant's active data key; null when it already is. */
  async reseal(
    trx: Kysely<Database>,
    tenantId: string,
    proxyId: string,
    field: SealedProxyField,
    stored: string,
  ): Promise<string | null> {
    const current = await this.keys.current(trx, tenantId, 'data');
    if (isSealed(stored) && envelopeTerm(stored) === current.term) return null;
    const plain = await this.open(trx, tenantId, proxyId, field, stored);
    return this.seal(trx, tenantId, proxyId, field, plain);
  }
}
