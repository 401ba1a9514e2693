import { describe, expect, it } from 'vitest';
import { parseIp, type IpAddress } from '../../src/net/ip-address.js';
import { embeddedIpv4, specialReason } from '../../src/net/special-addresses.js';

const ip = (text: string): IpAddress => {
  const parsed = parseIp(text);
  if (!parsed) throw new Error(`test address ${text} does not parse`);
  return parsed;
};
const reason = (text: string) => specialReason(ip(text));

describe('specialReason', () => {
  it.each([
    ['0.0.0.0', 'the unspecified address'],
    ['0.1.2.3', 'a "this network" address'],
    ['127.0.0.1', 'a loopback address'],
    ['127.255.255.254', 'a loopback address'],
    ['10.0.0.0', 'a private address'],
    ['10.255.255.255', 'a private address'],
    ['172.16.0.1', 'a private address'],
    ['172.31.255.255', 'a private address'],
    ['192.168.0.1', 'a private address'],
    ['169.254.0.1', 'a link-local address'],
    ['100.64.0.0', 'a carrier-grade NAT address'],
    ['100.127.255.255', 'a carrier-grade NAT address'],
    ['192.0.0.8', 'an IETF protocol address'],
    ['198.18.0.0', 'a benchmarking address'],
    ['198.19.255.255', 'a benchmarking address'],
    ['224.0.0.251', 'a multicast address'],
    ['239.255.255.250', 'a multicast address'],
    ['240.0.0.1', 'a reserved address'],
    ['255.255.255.255', 'the broadcast address'],
    ['::', 'the unspecified address'],
    ['::1', 'a loopback address'],
    ['fc00::1', 'a unique-local address'],
    ['fdff:ffff::1', 'a unique-local address'],
    ['fe80::1', 'a link-local address'],
    ['febf:ffff::1', 'a link-local address'],
    ['fec0::1', 'a site-local address'],
    ['ff02::fb', 'a multicast address'],
  ])('%s is %s', (text, expected) => {
    expect(reason(text)).toBe(expected);
  });

  it('names the cloud metadata address before the link-local or unique-local range holding it', () => {
    expect(reason('169.254.169.254')).toBe('a cloud metadata address');
    expect(reason('169.254.169.253')).toBe('a link-local address');
    expect(reason('fd00:ec2::254')).toBe('a cloud metadata address');
    expect(reason('fd00:ec2::253')).toBe('a unique-local address');
  });

  it('leaves the addresses just outside each range public', () => {
    for (const text of [
      '1.1.1.1',
      '8.8.8.8',
      '9.255.255.255',
      '11.0.0.0',
      '126.255.255.255',
      '128.0.0.0',
      '172.15.255.255',
      '172.32.0.0',
      '192.167.255.255',
      '192.169.0.0',
      '100.63.255.255',
      '100.128.0.0',
      '169.253.255.255',
      '169.255.0.0',
      '192.0.1.0',
      '198.17.255.255',
      '198.20.0.0',
      '223.255.255.255',
      '2606:4700:4700::1111',
      'fbff:ffff::1',
      'fe00::1',
      '2001:db8::1',
    ]) {
      expect(reason(text), text).toBeUndefined();
    }
  });

  it('sees through IPv6 forms that carry an IPv4 address to where the packet goes', () => {
    const embedded = (inner: string) => `${inner} (embedded in IPv6)`;
    expect(reason('::ffff:127.0.0.1')).toBe(embedded('a loopback address'));
    expect(reason('::ffff:169.254.169.254')).toBe(embedded('a cloud metadata address'));
    expect(reason('::10.0.0.1')).toBe(embedded('a private address')); // IPv4-compatible
    expect(reason('64:ff9b::192.168.0.1')).toBe(embedded('a private address')); // NAT64
    expect(reason('2002:7f00:1::')).toBe(embedded('a loopback address')); // 6to4 of 127.0.0.1
    expect(reason('2002:a9fe:a9fe:1234::1')).toBe(embedded('a cloud metadata address'));
  });

  it('refuses translators and tunnels that forward to any IPv4 address, local ones included', () => {
    expect(reason('64:ff9b:1::a00:1')).toBe('a local-use NAT64 address');
    expect(reason('64:ff9b:1:ffff::1')).toBe('a local-use NAT64 address');
    expect(reason('2001:0:4136:e378:8000:63bf:3fff:fdd2')).toBe('a Teredo tunnel address');
    expect(reason('192.88.99.1')).toBe('a 6to4 relay anycast address');
    // SIIT's IPv4-translated form ::ffff:0:a.b.c.d carries its IPv4 address like the mapped one.
    expect(reason('::ffff:0:127.0.0.1')).toBe('a loopback address (embedded in IPv6)');
    expect(reason('::ffff:0:10.1.2.3')).toBe('a private address (embedded in IPv6)');
    expect(reason('::ffff:0:8.8.8.8')).toBeUndefined();
    // Just outside: the next /32 after Teredo and the next /48 after local-use NAT64 are public.
    expect(reason('2001:1::1')).toBeUndefined();
    expect(reason('64:ff9b:2::1')).toBeUndefined();
  });

  it('lets an embedded public IPv4 address through', () => {
    expect(reason('::ffff:8.8.8.8')).toBeUndefined();
    expect(reason('64:ff9b::1.1.1.1')).toBeUndefined();
    expect(reason('2002:808:808::1')).toBeUndefined();
  });
});

describe('embeddedIpv4', () => {
  it('extracts the IPv4 address of mapped, compatible, NAT64 and 6to4 forms', () => {
    expect(embeddedIpv4(ip('::ffff:10.1.2.3'))).toEqual(ip('10.1.2.3'));
    expect(embeddedIpv4(ip('::10.1.2.3'))).toEqual(ip('10.1.2.3'));
    expect(embeddedIpv4(ip('64:ff9b::a01:203'))).toEqual(ip('10.1.2.3'));
    expect(embeddedIpv4(ip('2002:a01:203:ffff::9'))).toEqual(ip('10.1.2.3'));
  });

  it('treats :: and ::1 as themselves, not as 0.0.0.0 and 0.0.0.1', () => {
    expect(embeddedIpv4(ip('::'))).toBeUndefined();
    expect(embeddedIpv4(ip('::1'))).toBeUndefined();
    expect(embeddedIpv4(ip('::2'))).toEqual(ip('0.0.0.2'));
  });

  it('finds nothing in IPv4 addresses and ordinary IPv6 ones', () => {
    expect(embeddedIpv4(ip('10.1.2.3'))).toBeUndefined();
    expect(embeddedIpv4(ip('2001:db8::a01:203'))).toBeUndefined();
  });
});
