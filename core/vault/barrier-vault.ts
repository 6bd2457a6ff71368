import type { LookupPurpose } from '../crypto/keyring.ts';
import type { Barrier, VaultKeys } from './barrier.ts';

/**
 * What every backend's vault does with keys: hand each operation to its barrier, which holds the
 * keyring in memory. The backends differ only in where they store the wrapped keyring.
 */
export abstract class BarrierBackedVault implements VaultKeys {
  protected constructor(protected readonly barrier: Barrier) {}

  hashApiKey(apiKey: string): Uint8Array {
    return this.barrier.hashApiKey(apiKey);
  }

  keyedHash(purpose: LookupPurpose, message: Uint8Array | string): Uint8Array {
    return this.barrier.keyedHash(purpose, message);
  }

  wrapSecret(plaintext: Uint8Array, aad: Uint8Array): { term: number; sealed: Uint8Array } {
    return this.barrier.wrapSecret(plaintext, aad);
  }

  unwrapSecret(term: number, sealed: Uint8Array, aad: Uint8Array): Uint8Array {
    return this.barrier.unwrapSecret(term, sealed, aad);
  }

  rowMac(term: number, message: Uint8Array): Uint8Array {
    return this.barrier.rowMac(term, message);
  }

  get keyTerm(): number {
    return this.barrier.keyTerm;
  }

  get keyTerms(): readonly number[] {
    return this.barrier.keyTerms;
  }
}
