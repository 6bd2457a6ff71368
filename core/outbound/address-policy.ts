import { BlockList, isIP } from 'node:net';

/**
 * Which resolved addresses an outbound request may connect to. Only globally routable unicast
 * addresses pass; every special-purpose range is refused unless the operator allow-lists it (by
 * host name or CIDR range). IPv4-mapped (`::ffff:a.b.c.d`) and other IPv4-embedding IPv6 forms are
 * judged by the IPv4 address they carry, so `::ffff:127.0.0.1` is loopback, not "some IPv6".
 */
export type AddressClass =
  'unspecified' | 'loopback' | 'private' | 'link-local' | 'carrier-grade-nat' | 'multicast' | 'reserved';

interface Range {
  readonly address: string;
  readonly prefix: number;
  readonly family: 'ipv4' | 'ipv6';
  readonly kind: AddressClass;
}

const RANGES: readonly Range[] = [
  { address: '0.0.0.0', prefix: 8, family: 'ipv4', kind: 'unspecified' },
  { address: '127.0.0.0', prefix: 8, family: 'ipv4', kind: 'loopback' },
  { address: '10.0.0.0', prefix: 8, family: 'ipv4', kind: 'private' },
  { address: '172.16.0.0', prefix: 12, family: 'ipv4', kind: 'private' },
  { address: '192.168.0.0', prefix: 16, family: 'ipv4', kind: 'private' },
  { address: '169.254.0.0', prefix: 16, family: 'ipv4', kind: 'link-local' },
  { address: '100.64.0.0', prefix: 10, family: 'ipv4', kind: 'carrier-grade-nat' },
  { address: '224.0.0.0', prefix: 4, family: 'ipv4', kind: 'multicast' },
  // IETF protocol assignments, documentation, benchmarking, 240/4 and broadcast: never a real API.
  { address: '192.0.0.0', prefix: 24, family: 'ipv4', kind: 'reserved' },
  { address: '192.0.2.0', prefix: 24, family: 'ipv4', kind: 'reserved' },
  { address: '198.18.0.0', prefix: 15, family: 'ipv4', kind: 'reserved' },
  { address: '198.51.100.0', prefix: 24, family: 'ipv4', kind: 'reserved' },
  { address: '203.0.113.0', prefix: 24, family: 'ipv4', kind: 'reserved' },
  { address: '240.0.0.0', prefix: 4, family: 'ipv4', kind: 'reserved' },
  { address: '::', prefix: 128, family: 'ipv6', kind: 'unspecified' },
  { address: '::1', prefix: 128, family: 'ipv6', kind: 'loopback' },
  { address: 'fc00::', prefix: 7, family: 'ipv6', kind: 'private' },
  { address: 'fe80::', prefix: 10, family: 'ipv6', kind: 'link-local' },
  // Deprecated site-local: private in practice.
  { address: 'fec0::', prefix: 10, family: 'ipv6', kind: 'private' },
  { address: 'ff00::', prefix: 8, family: 'ipv6', kind: 'multicast' },
  // Discard-only, documentation, and the IPv4-compatible block (::a.b.c.d, deprecated).
  { address: '100::', prefix: 64, family: 'ipv6', kind: 'reserved' },
  { address: '2001:db8::', prefix: 32, family: 'ipv6', kind: 'reserved' },
  { address: '::', prefix: 96, family: 'ipv6', kind: 'reserved' },
];

const BLOCKS: ReadonlyArray<{ kind: AddressClass; list: BlockList }> = (() => {
  const byKind = new Map<AddressClass, BlockList>();
  for (const range of RANGES) {
    let list = byKind.get(range.kind);
    if (list === undefined) byKind.set(range.kind, (list = new BlockList()));
    list.addSubnet(range.address, range.prefix, range.family);
  }
  // Most specific first: `::` and `::1` sit inside the IPv4-compatible block.
  const order: AddressClass[] = [
    'unspecified',
    'loopback',
    'private',
    'link-local',
    'carrier-grade-nat',
    'multicast',
    'reserved',
  ];
  return order.map((kind) => ({ kind, list: byKind.get(kind) as BlockList }));
})();

/** Parses an IPv6 text form into 8 16-bit groups (accepts an embedded dotted IPv4 tail); null if not IPv6. */
function ipv6Groups(address: string): number[] | null {
  if (isIP(address) !== 6) return null;
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted !== null) {
    const [a, b, c, d] = (dotted[1] as string).split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const parse = (part: string | undefined): number[] =>
    part === undefined || part === '' ? [] : part.split(':').map((g) => parseInt(g, 16));
  const left = parse(head);
  const right = parse(tail);
  const fill = tail === undefined ? [] : new Array<number>(8 - left.length - right.length).fill(0);
  return [...left, ...fill, ...right];
}

function ipv4Of(high: number, low: number): string {
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}

/**
 * The IPv4 address an IPv6 address stands for, when it is one of the forms that reach IPv4 hosts:
 * IPv4-mapped `::ffff:0:0/96`, IPv4-translated `::ffff:0:0:0/96`, NAT64 `64:ff9b::/96` and
 * `64:ff9b:1::/48`, and 6to4 `2002::/16`.
 */
export function embeddedIpv4(address: string): string | null {
  const g = ipv6Groups(address);
  if (g === null) return null;
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const zeroPrefix = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0;
  if (zeroPrefix && g4 === 0 && g5 === 0xffff) return ipv4Of(g6, g7);
  if (zeroPrefix && g4 === 0xffff && g5 === 0) return ipv4Of(g6, g7);
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return ipv4Of(g6, g7);
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return ipv4Of(g6, g7);
  if (g0 === 0x2002) return ipv4Of(g1, g2);
  return null;
}

/** The special-purpose class of an IP address, or null for a globally routable one. Non-IPs → 'reserved'. */
export function classifyAddress(address: string): AddressClass | null {
  const family = isIP(address);
  if (family === 0) return 'reserved';
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (v4 !== null) return classifyAddress(v4);
  }
  const type = family === 4 ? 'ipv4' : 'ipv6';
  const bare = address.replace(/%.*$/, '');
  for (const { kind, list } of BLOCKS) if (list.check(bare, type)) return kind;
  return null;
}

/** Operator exemptions: host names (exact, case-insensitive) and CIDR ranges. */
export interface AllowList {
  readonly hosts: ReadonlySet<string>;
  readonly ranges: BlockList;
  /** The text it was parsed from, normalised (for display). */
  readonly text: string;
}

/**
 * Parses `localhost,127.0.0.0/8,::1/128,api.internal` into an allow list. A bare IP counts as a
 * single-address range. Throws RangeError naming the bad entry.
 */
export function parseAllowList(text: string): AllowList {
  const hosts = new Set<string>();
  const ranges = new BlockList();
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    const slash = entry.indexOf('/');
    const address = slash === -1 ? entry : entry.slice(0, slash);
    const family = isIP(address);
    if (family === 0) {
      if (slash !== -1 || !/^[A-Za-z0-9.-]+$/.test(entry) || entry.startsWith('.') || entry.endsWith('.'))
        throw new RangeError(`"${entry}" is neither a host name nor a CIDR range`);
      hosts.add(entry.toLowerCase());
      continue;
    }
    const max = family === 4 ? 32 : 128;
    const prefixText = slash === -1 ? String(max) : entry.slice(slash + 1);
    const prefix = Number(prefixText);
    if (!/^\d+$/.test(prefixText) || prefix > max)
      throw new RangeError(`"${entry}" has an invalid prefix length (0 to ${max})`);
    ranges.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
  }
  return { hosts, ranges, text: entries.join(',') };
}

export const EMPTY_ALLOW_LIST: AllowList = parseAllowList('');

function inRanges(allow: AllowList, address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (allow.ranges.check(address, family === 4 ? 'ipv4' : 'ipv6')) return true;
  const v4 = family === 6 ? embeddedIpv4(address) : null;
  return v4 !== null && allow.ranges.check(v4, 'ipv4');
}

/**
 * Why `host` may not connect to `address` (its class), or null when it may: a globally routable
 * address, an allow-listed host name, or an address inside an allow-listed range.
 */
export function refusedAddressClass(allow: AllowList, host: string, address: string): AddressClass | null {
  const kind = classifyAddress(address);
  if (kind === null) return null;
  if (allow.hosts.has(host.toLowerCase().replace(/\.$/, ''))) return null;
  if (inRanges(allow, address)) return null;
  return kind;
}
