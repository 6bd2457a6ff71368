import { randomBytes } from 'node:crypto';
import { VaultError } from '../errors/catalogue.ts';
import { KEY_BYTES, open, seal } from './aead.ts';
import type { Sodium } from './sodium.ts';

/** What a keyed lookup hash is for; each purpose has its own key. */
export type LookupPurpose = 'api-key' | 'session' | 'invitation' | 'audit';

const LOOKUP_CONTEXT: Record<LookupPurpose, string> = {
  'api-key': 'svcapik_',
  session: 'svcsess_',
  invitation: 'svcinvt_',
  audit: 'svcaudt_',
};

interface KeyringTerm {
  readonly term: number;
  readonly key: string;
  readonly created_at: string;
}

interface KeyringData {
  readonly version: 1;
  readonly active: number;
  readonly terms: readonly KeyringTerm[];
  /** Stable key for lookup hashes (API keys); it must not change when terms rotate. */
  readonly lookup_key: string;
  /**
   * The vault's rows that decide access carry MACs (core/integrity/). Kept here, under the root
   * key, because a database administrator can remove everything else that would say so.
   */
  readonly row_macs?: true;
}

/** Subkey purposes; libsodium's KDF wants an 8-byte context per purpose. */
const CONTEXT = {
  file: 'svcfile_',
  wrap: 'svcwrap_',
  row: 'svcrowmc',
} as const;

/**
 * The numbered data keys of a vault (HashiCorp Vault's keyring): the root key wraps this whole
 * object, so changing the root key re-wraps only this. Each term derives a file key (snapshot and
 * journal), a wrapping key (per-tenant keys stored in the database) and a row key (the MACs of the
 * rows that decide access, core/integrity/row-authenticator.ts).
 */
export class Keyring {
  private readonly derived = new Map<string, Uint8Array>();

  private constructor(
    private readonly sodium: Sodium,
    private readonly data: KeyringData,
  ) {}

  static create(sodium: Sodium, now: Date): Keyring {
    return new Keyring(sodium, {
      version: 1,
      active: 1,
      terms: [{ term: 1, key: b64(randomBytes(KEY_BYTES)), created_at: now.toISOString() }],
      lookup_key: b64(randomBytes(KEY_BYTES)),
      // A new vault's schema has row MACs from its first migration run.
      row_macs: true,
    });
  }

  /** Decrypts a wrapped keyring; null when the root key (or the AAD) is wrong. */
  static unwrap(sodium: Sodium, rootKey: Uint8Array, wrapped: Uint8Array, aad: Uint8Array): Keyring | null {
    const plain = open(sodium, rootKey, wrapped, aad);
    if (plain === null) return null;
    const data = JSON.parse(Buffer.from(plain).toString('utf8')) as KeyringData;
    if (data.version !== 1 || !Array.isArray(data.terms)) {
      throw new VaultError('VAULT_CORRUPT', 'The keyring has an unknown format.');
    }
    return new Keyring(sodium, data);
  }

  /** A keyring with a fresh random term added and made active; this one is unchanged. */
  withNewTerm(now: Date): Keyring {
    const term = Math.max(...this.terms) + 1;
    return new Keyring(this.sodium, {
      ...this.data,
      active: term,
      terms: [...this.data.terms, { term, key: b64(randomBytes(KEY_BYTES)), created_at: now.toISOString() }],
    });
  }

  /** A keyring holding only the active term: the others are forgotten for good. */
  withOnlyActiveTerm(): Keyring {
    return new Keyring(this.sodium, {
      ...this.data,
      terms: this.data.terms.filter((t) => t.term === this.data.active),
    });
  }

  /** Whether the rows of this keyring's vault are known to carry MACs. */
  get rowMacs(): boolean {
    return this.data.row_macs === true;
  }

  /** This keyring, recording that the vault's rows carry MACs; this one is unchanged. */
  withRowMacs(): Keyring {
    return new Keyring(this.sodium, { ...this.data, row_macs: true });
  }

  wrap(rootKey: Uint8Array, aad: Uint8Array): Uint8Array {
    return seal(this.sodium, rootKey, Buffer.from(JSON.stringify(this.data), 'utf8'), aad);
  }

  get activeTerm(): number {
    return this.data.active;
  }

  get terms(): number[] {
    return this.data.terms.map((t) => t.term);
  }

  /** Key for the snapshot and journal written under `term`. */
  fileKey(term: number): Uint8Array {
    return this.subkey(term, 'file');
  }

  /** Key that wraps per-tenant keys stored in the database under `term`. */
  wrapKey(term: number): Uint8Array {
    return this.subkey(term, 'wrap');
  }

  /**
   * Key of the MACs over rows that decide access, under `term`: per term (not stable like the lookup
   * key), so that after a rotation retires a term, old key material can no longer vouch for a row.
   */
  rowKey(term: number): Uint8Array {
    return this.subkey(term, 'row');
  }

  /**
   * Key for one kind of lookup hash or MAC. Derived from the keyring's stable lookup key, so hashes
   * stored in the database stay valid when data-key terms rotate.
   */
  lookupKey(purpose: LookupPurpose): Uint8Array {
    const cacheKey = `lookup:${purpose}`;
    const cached = this.derived.get(cacheKey);
    if (cached) return cached;
    const key = this.sodium.crypto_kdf_derive_from_key(
      KEY_BYTES,
      1,
      LOOKUP_CONTEXT[purpose],
      new Uint8Array(Buffer.from(this.data.lookup_key, 'base64')),
    );
    this.derived.set(cacheKey, key);
    return key;
  }

  /**
   * Key of the embedded vault's audit segment files (core/audit/segments/). Derived from the stable
   * lookup key, like the audit chain's MACs: segments are append-only files that may hold years of
   * entries, so they stay readable across key rotations instead of being rewritten by each one.
   */
  auditSegmentKey(): Uint8Array {
    const cacheKey = 'audit-segment';
    const cached = this.derived.get(cacheKey);
    if (cached) return cached;
    const key = this.sodium.crypto_kdf_derive_from_key(
      KEY_BYTES,
      2,
      'svcaudsg',
      new Uint8Array(Buffer.from(this.data.lookup_key, 'base64')),
    );
    this.derived.set(cacheKey, key);
    return key;
  }

  private subkey(term: number, purpose: keyof typeof CONTEXT): Uint8Array {
    const cacheKey = `${purpose}:${term}`;
    const cached = this.derived.get(cacheKey);
    if (cached) return cached;
    const entry = this.data.terms.find((t) => t.term === term);
    if (!entry) throw new VaultError('VAULT_CORRUPT', `Key term ${term} is not in the keyring.`);
    const key = this.sodium.crypto_kdf_derive_from_key(
      KEY_BYTES,
      1,
      CONTEXT[purpose],
      new Uint8Array(Buffer.from(entry.key, 'base64')),
    );
    this.derived.set(cacheKey, key);
    return key;
  }
}

function b64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64');
}
