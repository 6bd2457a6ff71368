import { VaultError } from '../errors/catalogue.ts';
import { open, seal } from '../crypto/aead.ts';
import { keyedHash } from '../crypto/keyed-hash.ts';
import { Keyring } from '../crypto/keyring.ts';
import type { LookupPurpose } from '../crypto/keyring.ts';
import { deriveRootKey } from '../crypto/root-key.ts';
import type { KdfHeader } from '../crypto/root-key.ts';
import type { Sodium } from '../crypto/sodium.ts';
import { keyringAad } from '../backends/embedded/vault-file.ts';
import type { KeySource } from '../crypto/root-key.ts';

/**
 * What the code above storage may do with keys: lookup hashes, the audit chain's MAC, the MACs of
 * rows that decide access and wrapping of small secrets. It never sees the keyring, the root key or which backend holds the data.
 */
export interface VaultKeys {
  /** Keyed BLAKE2b of an API key (for lookup); the key itself is never stored. */
  hashApiKey(apiKey: string): Uint8Array;
  /**
   * Keyed BLAKE2b-256 with the key of `purpose`: lookup hashes of secrets (API keys, session tokens,
   * invitation secrets) and the audit log's hash chain.
   */
  keyedHash(purpose: LookupPurpose, message: Uint8Array | string): Uint8Array;
  /**
   * Seals a small secret (a per-tenant key) with the keyring's wrapping key of the active term.
   * `aad` binds it to where it is stored.
   */
  wrapSecret(plaintext: Uint8Array, aad: Uint8Array): { term: number; sealed: Uint8Array };
  /** Opens what `wrapSecret` sealed under `term`; throws VAULT_CORRUPT when it does not authenticate. */
  unwrapSecret(term: number, sealed: Uint8Array, aad: Uint8Array): Uint8Array;
  /**
   * Keyed BLAKE2b-256 of `message` with the row key of `term`: the MAC of a row that decides access
   * (core/integrity/row-authenticator.ts builds the message). VAULT_CORRUPT for a term the keyring
   * does not hold.
   */
  rowMac(term: number, message: Uint8Array): Uint8Array;
  /** The active key term: new snapshots, journal records and wrapped keys are under it. */
  readonly keyTerm: number;
  /** Every key term the keyring still holds. */
  readonly keyTerms: readonly number[];
}

/** Key terms: added and retired with the root key, stored by whichever backend holds the keyring. */
export interface KeyTermRotation {
  /**
   * Adds a fresh key term and makes it active; the keyring is re-wrapped with the root key `key`
   * (checked first) and stored under the new term. Returns the new term.
   */
  addKeyTerm(key: KeySource): Promise<number>;
  /**
   * Forgets every term but the active one; refused (VAULT_CORRUPT, nothing changed) while a wrapped
   * key or a token envelope is still under an older term. Returns the terms retired.
   */
  retireOldKeyTerms(key: KeySource): Promise<number[]>;
}

/** The barrier as the rest of the vault sees it: key operations and key terms, whatever the backend. */
export type VaultBarrier = VaultKeys & KeyTermRotation;

/** Where a backend keeps the wrapped keyring, and what binds it (the AAD names the vault and the KDF). */
export interface WrappedKeyring {
  readonly vaultId: string;
  readonly kdf: KdfHeader;
  readonly wrapped: Uint8Array;
}

/**
 * The encryption barrier (in the manner of HashiCorp Vault's): it holds the unwrapped keyring in
 * memory and performs every key operation, the same for every storage backend. Each backend stores
 * only what the barrier hands it already sealed (the embedded file under a term's file key; the
 * PostgreSQL keyring row under the root key, per-tenant keys under a term's wrapping key).
 * Sealed (after `seal()`, i.e. on close) it forgets the keyring and refuses every operation.
 */
export class Barrier implements VaultKeys {
  private keyring: Keyring | null;

  constructor(
    private readonly sodium: Sodium,
    keyring: Keyring,
  ) {
    this.keyring = keyring;
  }

  /**
   * Unwraps a stored keyring with the root key from `key`; VAULT_WRONG_KEY when it does not
   * authenticate. Checks the key only: nothing is stored or changed.
   */
  static unlockKeyring(sodium: Sodium, stored: WrappedKeyring, key: KeySource): Keyring {
    return Barrier.unlockWithRootKey(sodium, stored, deriveRootKey(sodium, key, stored.kdf));
  }

  static unlockWithRootKey(sodium: Sodium, stored: WrappedKeyring, rootKey: Uint8Array): Keyring {
    const keyring = Keyring.unwrap(sodium, rootKey, stored.wrapped, keyringAad(stored.vaultId, stored.kdf));
    if (!keyring) throw new VaultError('VAULT_WRONG_KEY');
    return keyring;
  }

  /** The root key `key` stands for, checked against the stored keyring (VAULT_WRONG_KEY otherwise). */
  static checkedRootKey(sodium: Sodium, stored: WrappedKeyring, key: KeySource): Uint8Array {
    const rootKey = deriveRootKey(sodium, key, stored.kdf);
    Barrier.unlockWithRootKey(sodium, stored, rootKey);
    return rootKey;
  }

  /** The keyring sealed with `rootKey`, bound to the vault and KDF: what a backend stores. */
  static wrapKeyring(
    sodium: Sodium,
    keyring: Keyring,
    rootKey: Uint8Array,
    vaultId: string,
    kdf: KdfHeader,
  ): Uint8Array {
    return keyring.wrap(rootKey, keyringAad(vaultId, kdf));
  }

  get sealed(): boolean {
    return this.keyring === null;
  }

  /** Forgets the keyring: every later key operation is refused (VAULT_CLOSED). */
  seal(): void {
    this.keyring = null;
  }

  /** The keyring in force; backends use it to compute the next one on a term change. */
  get current(): Keyring {
    if (!this.keyring) throw new VaultError('VAULT_CLOSED', 'The vault is sealed.');
    return this.keyring;
  }

  /**
   * Puts `next` in force and returns how to undo it: a backend swaps first, stores, and undoes
   * when storing fails, so the keyring in memory never differs from the stored one after a call.
   */
  adopt(next: Keyring): () => void {
    const previous = this.current;
    this.keyring = next;
    return () => {
      this.keyring = previous;
    };
  }

  /** Key of the whole-file encryption (snapshot and journal) under `term`: embedded backend only. */
  fileKey(term: number): Uint8Array {
    return this.current.fileKey(term);
  }

  hashApiKey(apiKey: string): Uint8Array {
    return this.keyedHash('api-key', apiKey);
  }

  keyedHash(purpose: LookupPurpose, message: Uint8Array | string): Uint8Array {
    return keyedHash(this.sodium, this.current.lookupKey(purpose), message);
  }

  wrapSecret(plaintext: Uint8Array, aad: Uint8Array): { term: number; sealed: Uint8Array } {
    const keyring = this.current;
    const term = keyring.activeTerm;
    return { term, sealed: seal(this.sodium, keyring.wrapKey(term), plaintext, aad) };
  }

  unwrapSecret(term: number, sealed: Uint8Array, aad: Uint8Array): Uint8Array {
    const plain = open(this.sodium, this.current.wrapKey(term), sealed, aad);
    if (!plain) throw new VaultError('VAULT_CORRUPT', 'A wrapped key failed authentication.');
    return plain;
  }

  rowMac(term: number, message: Uint8Array): Uint8Array {
    return keyedHash(this.sodium, this.current.rowKey(term), message);
  }

  get keyTerm(): number {
    return this.current.activeTerm;
  }

  get keyTerms(): readonly number[] {
    return this.current.terms;
  }
}

/** Refuses retiring terms while a wrapped key, a token envelope or a row MAC still names an older one. */
export function assertOnlyActiveTermInUse(keys: number, envelopes: number, rowMacs: number): void {
  if (keys > 0 || envelopes > 0 || rowMacs > 0) {
    throw new VaultError(
      'VAULT_CORRUPT',
      `Older key terms are still in use (${keys} wrapped keys, ${envelopes} token envelopes, ` +
        `${rowMacs} row MACs); nothing was retired.`,
    );
  }
}
