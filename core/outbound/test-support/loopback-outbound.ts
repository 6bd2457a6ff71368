import type { LookupAddress } from 'node:dns';
import { createOutboundClient, parseAllowList } from '../index.ts';
import type { OutboundClient } from '../index.ts';
import { testPki } from './https-destination.ts';

/**
 * An outbound client for tests whose destination is `startTestDestination()`: every host name
 * resolves to 127.0.0.1, loopback is allow-listed, and the test CA is trusted.
 */
export async function loopbackOutbound(timeoutMs: number): Promise<OutboundClient> {
  const resolve = async (): Promise<LookupAddress[]> => [{ address: '127.0.0.1', family: 4 }];
  return createOutboundClient(
    { allow: parseAllowList('127.0.0.0/8'), caPem: (await testPki()).caPem, timeoutMs },
    { resolve },
  );
}
