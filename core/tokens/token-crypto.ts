/**
 * The tokens feature's use of the per-tenant keys:
 * - `data` is sealed as a field envelope (JSON of the data) with the tenant's data key, AAD =
 *   tenant ‖ token id ‖ term, so an envelope copied into another token's row does not open;
 * - fingerprints are keyed BLAKE2b with the tenant's fingerprint key over `type ‖ 0 ‖ input`,
 *   base58-encoded (44 characters at most);
 * - blind search indexes are keyed BLAKE2b with the tenant's search key over the lower-cased value.
 * Fingerprint and search keys are per tenant, so equal data in two tenants hashes differently.
 */
import type { Kysely } from 'kysely';
import { envelopeTerm, openField, sealField } from '../crypto/field-envelope.ts';
import { keyedHash } from '../crypto/keyed-hash.ts';
import { loadSodium, loadedSodium } from '../crypto/sodium.ts';
import type { Sodium } from '../crypto/sodium.ts';
import type { TenantKey, TenantKeys } from '../crypto/tenant-keys.ts';
import type { NowOrLater } from '../common-types.ts';
import { VaultError } from '../errors/catalogue.ts';
import type { Database } from '../storage/schema.ts';
import { base58 } from './base58.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** Keyed hashes with a key fetched once (per transaction), so many values cost one lookup. */
export interface Hasher {
  (value: string): Uint8Array;
}

function parseData(plain: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(plain)) as unknown;
  } catch {
    throw new VaultError('VAULT_CORRUPT', 'Stored token data is not valid JSON.');
  }
}

export class TokenCrypto {
  constructor(private readonly keys: TenantKeys) {}

  /** Seals JSON(data) for `tokenId` under the tenant's newest data key. */
  async seal(trx: Kysely<Database>, tenantId: string, tokenId: string, data: unknown): Promise<string> {
    const sodium = await loadSodium();
    const key = await this.keys.current(trx, tenantId, 'data');
    const json = JSON.stringify(data);
    return sealField(sodium, key, tenantId, tokenId, encoder.encode(json));
  }

  /**
   * The sealing function of a tenant for one transaction: the data key is fetched once, so many
   * tokens cost one lookup.
   */
  async sealer(trx: Kysely<Database>, tenantId: string): Promise<(tokenId: string, data: unknown) => string> {
    const sodium = await loadSodium();
    const key = await this.keys.current(trx, tenantId, 'data');
    return (tokenId, data) => sealField(sodium, key, tenantId, tokenId, encoder.encode(JSON.stringify(data)));
  }

  /**
   * Opens an envelope sealed by `seal` (under whichever term it names). The data comes back at once
   * where no query is needed (libsodium loaded and the key seen last for the envelope's term opens
   * it), else as a promise, where the stored key decides (and a corrupt envelope fails as it always
   * does). Which path runs depends on the key cache, never on the data.
   */
  open(db: Kysely<Database>, tenantId: string, tokenId: string, envelope: string): NowOrLater<unknown> {
    const sodium = loadedSodium();
    const plain = sodium && this.openWithRecent(sodium, tenantId, tokenId, envelope);
    return plain ? parseData(plain) : this.openWithStoredKey(db, tenantId, tokenId, envelope);
  }

  private async openWithStoredKey(
    db: Kysely<Database>,
    tenantId: string,
    tokenId: string,
    envelope: string,
  ): Promise<unknown> {
    const sodium = await loadSodium();
    const plain =
      this.openWithRecent(sodium, tenantId, tokenId, envelope) ??
      openField(
        sodium,
        await this.keys.forTerm(db, tenantId, 'data', envelopeTerm(envelope)),
        tenantId,
        tokenId,
        envelope,
      );
    return parseData(plain);
  }

  /**
   * The key seen last for this term saves a query per read; one that does not open the envelope
   * (it came from a rolled-back transaction) counts as a miss (null), and the stored key decides.
   */
  private openWithRecent(
    sodium: Sodium,
    tenantId: string,
    tokenId: string,
    envelope: string,
  ): Uint8Array | null {
    const recent = this.keys.recent(tenantId, 'data', envelopeTerm(envelope));
    if (!recent) return null;
    try {
      return openField(sodium, recent, tenantId, tokenId, envelope);
    } catch {
      return null;
    }
  }

  /**
   * Re-seals an envelope under the tenant's data key of the active term (key rotation); null when
   * it already is. The data is never returned, only the new envelope.
   */
  async reseal(
    trx: Kysely<Database>,
    tenantId: string,
    tokenId: string,
    envelope: string,
  ): Promise<string | null> {
    const sodium = await loadSodium();
    const key = await this.keys.current(trx, tenantId, 'data');
    const term = envelopeTerm(envelope);
    if (term === key.term) return null;
    const old = await this.keys.forTerm(trx, tenantId, 'data', term);
    return sealField(sodium, key, tenantId, tokenId, openField(sodium, old, tenantId, tokenId, envelope));
  }

  /** The fingerprint function of a tenant: `input` → base58 keyed BLAKE2b of `type ‖ 0 ‖ input`. */
  async fingerprinter(
    trx: Kysely<Database>,
    tenantId: string,
  ): Promise<(type: string, input: string) => string> {
    const sodium = await loadSodium();
    const key = await this.keys.current(trx, tenantId, 'fingerprint');
    return (type, input) => base58(keyedHash(sodium, key.key, `${type}\u0000${input}`));
  }

  /** The blind-index function of a tenant: value → keyed BLAKE2b of the lower-cased value. */
  async searchHasher(trx: Kysely<Database>, tenantId: string): Promise<Hasher> {
    const sodium = await loadSodium();
    const key: TenantKey = await this.keys.current(trx, tenantId, 'search');
    return (value) => keyedHash(sodium, key.key, value.toLowerCase());
  }
}
