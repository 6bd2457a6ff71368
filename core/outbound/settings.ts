import { readFile } from 'node:fs/promises';
import { VaultError } from '../errors/catalogue.ts';
import { EMPTY_ALLOW_LIST, parseAllowList, type AllowList } from './address-policy.ts';

/** Destination timeout when none is configured (milliseconds). */
export const DEFAULT_DESTINATION_TIMEOUT_MS = 25_000;
/** Longest destination timeout an operator may set. */
export const MAX_DESTINATION_TIMEOUT_MS = 600_000;

/** How outbound requests are made (settings `proxyAllow`, `proxyCaFile`, `proxyTimeoutMs`). */
export interface OutboundSettings {
  /** Host names and CIDR ranges exempt from the address policy; empty by default. */
  readonly allow: AllowList;
  /** Extra PEM CA bundle trusted besides the system's; null = system CAs only. */
  readonly caPem: string | null;
  /** Connect, response-headers and idle-body timeout, in milliseconds. */
  readonly timeoutMs: number;
}

export const DEFAULT_OUTBOUND_SETTINGS: OutboundSettings = {
  allow: EMPTY_ALLOW_LIST,
  caPem: null,
  timeoutMs: DEFAULT_DESTINATION_TIMEOUT_MS,
};

/**
 * Builds the settings from the configuration's three values, reading the CA file. A missing or
 * unreadable file, or one with no PEM certificate, is a configuration error (never a silent fallback
 * to the system CAs only).
 */
export async function loadOutboundSettings(config: {
  readonly proxyAllow: string;
  readonly proxyCaFile: string | null;
  readonly proxyTimeoutMs: number;
}): Promise<OutboundSettings> {
  let allow: AllowList;
  try {
    allow = parseAllowList(config.proxyAllow);
  } catch (error) {
    throw new VaultError('CONFIG_INVALID', `proxyAllow: ${(error as Error).message}`);
  }
  let caPem: string | null = null;
  if (config.proxyCaFile !== null) {
    try {
      caPem = await readFile(config.proxyCaFile, 'utf8');
    } catch (error) {
      throw new VaultError('CONFIG_INVALID', `proxyCaFile: ${config.proxyCaFile} cannot be read`, {
        cause: error,
      });
    }
    if (!caPem.includes('-----BEGIN CERTIFICATE-----'))
      throw new VaultError('CONFIG_INVALID', `proxyCaFile: ${config.proxyCaFile} holds no PEM certificate`);
  }
  return { allow, caPem, timeoutMs: config.proxyTimeoutMs };
}
