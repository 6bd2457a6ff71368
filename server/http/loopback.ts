import { BlockList, isIP } from 'node:net';

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** Loopback means 127.0.0.0/8, ::1 (IPv4-mapped forms included) or `localhost`; any other name may resolve anywhere. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (bare === 'localhost') return true;
  const family = isIP(bare);
  if (family === 4) return loopback.check(bare, 'ipv4');
  if (family === 6) return loopback.check(bare, 'ipv6');
  return false;
}
