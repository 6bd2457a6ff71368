import type { Kysely } from 'kysely';
import { SealedText } from '../crypto/sealed-text.ts';
import type { TenantKeys } from '../crypto/tenant-keys.ts';
import type { Database } from '../storage/schema.ts';

export { isSealed } from '../crypto/sealed-text.ts';

/**
 * The parts of a proxy that may hold secrets (its `configuration` map and its transform code) are
 * sealed at rest (core/crypto/sealed-text.ts), each bound to its proxy and field.
 */
export type SealedProxyField = 'configuration' | 'request_transform' | 'response_transform';

export const SEALED_PROXY_FIELDS: readonly SealedProxyField[] = [
  'configuration',
  'request_transform',
  'response_transform',
];

function context(proxyId: string, field: SealedProxyField): string {
  return `proxy:${proxyId}:${field}`;
}

export class ProxySecrets {
  private readonly text: SealedText;

  constructor(keys: TenantKeys) {
    this.text = new SealedText(keys);
  }

  seal(
    trx: Kysely<Database>,
    tenantId: string,
    proxyId: string,
    field: SealedProxyField,
    plaintext: string,
  ): Promise<string> {
    return this.text.seal(trx, tenantId, context(proxyId, field), plaintext);
  }

  open(
    db: Kysely<Database>,
    tenantId: string,
    proxyId: string,
    field: SealedProxyField,
    stored: string,
  ): Promise<string> {
    return this.text.open(db, tenantId, context(proxyId, field), stored);
  }

  reseal(
    trx: Kysely<Database>,
    tenantId: string,
    proxyId: string,
    field: SealedProxyField,
    stored: string,
  ): Promise<string | null> {
    return this.text.reseal(trx, tenantId, context(proxyId, field), stored);
  }
}
