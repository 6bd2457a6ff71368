import type { Sodium } from './sodium.ts';
import { open, seal } from './aead.ts';
import { VaultError } from '../errors/catalogue.ts';

/**
 * Field-level encryption of token data (Bitwarden-style self-describing ciphertext):
 * `v1.<term>.<nonce base64url>.<ciphertext base64url>`, XChaCha20-Poly1305 under the tenant's data
 * key of that term, AAD = tenant id ‖ token id ‖ term. The AAD pins a ciphertext to its token, so
 * copying one token's data into another's row fails to decrypt.
 */
const NONCE_BYTES = 24;

function aad(tenantId: string, tokenId: string, term: number): Uint8Array {
  return Buffer.from(`${tenantId}\u0000${tokenId}\u0000${term}`, 'utf8');
}

export function sealField(
  sodium: Sodium,
  key: { term: number; key: Uint8Array },
  tenantId: string,
  tokenId: string,
  plaintext: Uint8Array,
): string {
  const sealed = seal(sodium, key.key, plaintext, aad(tenantId, tokenId, key.term));
  const nonce = Buffer.from(sealed.subarray(0, NONCE_BYTES)).toString('base64url');
  const ciphertext = Buffer.from(sealed.subarray(NONCE_BYTES)).toString('base64url');
  return `v1.${key.term}.${nonce}.${ciphertext}`;
}

/** The key term an envelope names, to fetch the right key before opening it. */
export function envelopeTerm(envelope: string): number {
  const [version, term] = envelope.split('.', 3);
  const parsed = Number(term);
  if (version !== 'v1' || !Number.isInteger(parsed) || parsed < 1) {
    throw new VaultError('VAULT_CORRUPT', 'A stored ciphertext has an unknown format.');
  }
  return parsed;
}

export function openField(
  sodium: Sodium,
  key: { term: number; key: Uint8Array },
  tenantId: string,
  tokenId: string,
  envelope: string,
): Uint8Array {
  const parts = envelope.split('.');
  if (parts.length !== 4 || parts[0] !== 'v1' || Number(parts[1]) !== key.term) {
    throw new VaultError('VAULT_CORRUPT', 'A stored ciphertext has an unknown format.');
  }
  const sealed = Buffer.concat([Buffer.from(parts[2]!, 'base64url'), Buffer.from(parts[3]!, 'base64url')]);
  const plain = open(sodium, key.key, sealed, aad(tenantId, tokenId, key.term));
  if (!plain) throw new VaultError('VAULT_CORRUPT', 'Stored token data failed authentication.');
  return plain;
}
