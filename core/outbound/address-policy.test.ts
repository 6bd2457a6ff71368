import { describe, expect, it } from 'vitest';
import { classifyAddress, embeddedIpv4, parseAllowList, refusedAddressClass } from './address-policy.ts';
import { REFUSED_ADDRESSES } from './test-support/refused-addresses.ts';

describe('classifyAddress', () => {
  it.each(REFUSED_ADDRESSES)('%s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it.each([
    '8.8.8.8',
    '93.184.216.34',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
  ])('%s is globally routable', (address) => {
    expect(classifyAddress(address)).toBeNull();
  });

  it('treats anything that is not an IP address as refused', () => {
    expect(classifyAddress('localhost')).toBe('reserved');
  });

  it('reads the IPv4 address inside IPv6 forms', () => {
    expect(embeddedIpv4('::ffff:1.2.3.4')).toBe('1.2.3.4');
    expect(embeddedIpv4('64:ff9b::102:304')).toBe('1.2.3.4');
    expect(embeddedIpv4('2606:4700::1')).toBeNull();
  });
});

describe('allow list', () => {
  it('exempts host names and CIDR ranges, including mapped forms of an allowed IPv4 range', () => {
    const allow = parseAllowList(' localhost , 127.0.0.0/8,fd00::/8, 10.1.2.3 ');
    expect(allow.text).toBe('localhost,127.0.0.0/8,fd00::/8,10.1.2.3');
    expect(refusedAddressClass(allow, 'LOCALHOST', '::1')).toBeNull();
    expect(refusedAddressClass(allow, 'x.example', '127.0.0.9')).toBeNull();
    expect(refusedAddressClass(allow, 'x.example', '::ffff:127.0.0.9')).toBeNull();
    expect(refusedAddressClass(allow, 'x.example', 'fd00::5')).toBeNull();
    expect(refusedAddressClass(allow, 'x.example', '10.1.2.3')).toBeNull();
    expect(refusedAddressClass(allow, 'x.example', '10.1.2.4')).toBe('private');
    expect(refusedAddressClass(allow, 'x.example', '::1')).toBe('loopback');
  });

  it('an empty list exempts nothing', () => {
    const allow = parseAllowList('');
    expect(refusedAddressClass(allow, 'localhost', '127.0.0.1')).toBe('loopback');
    expect(refusedAddressClass(allow, 'api.example', '8.8.8.8')).toBeNull();
  });

  it.each(['10.0.0.0/33', '::/129', 'bad host', 'a/8', '.example', '10.0.0.0/x'])('refuses %j', (entry) => {
    expect(() => parseAllowList(entry)).toThrow(RangeError);
  });
});
