import { describe, expect, it } from 'vitest';
import {
  cidrContains,
  parseCidr,
  parseIp,
  unmapIpv4,
  type Cidr,
  type IpAddress,
} from '../../src/net/ip-address.js';

const ip = (text: string): IpAddress => {
  const parsed = parseIp(text);
  if (!parsed) throw new Error(`test address ${text} does not parse`);
  return parsed;
};
const cidr = (text: string): Cidr => {
  const parsed = parseCidr(text);
  if (!parsed) throw new Error(`test network ${text} does not parse`);
  return parsed;
};

describe('parseIp', () => {
  it('reads IPv4 as a 32-bit number', () => {
    expect(parseIp('0.0.0.0')).toEqual({ family: 4, value: 0n });
    expect(parseIp('10.1.2.3')).toEqual({ family: 4, value: 0x0a010203n });
    expect(parseIp('255.255.255.255')).toEqual({ family: 4, value: 0xffffffffn });
  });

  it('reads every IPv6 spelling of the same address as one number', () => {
    const full = ip('2001:0db8:0000:0000:0000:0000:0000:0001');
    for (const text of ['2001:db8::1', '2001:DB8:0:0:0:0:0:1', '2001:db8:0::0:1']) {
      expect(ip(text)).toEqual(full);
    }
    expect(full.family).toBe(6);
    expect(full.value).toBe((0x20010db8n << 96n) | 1n);
  });

  it('handles :: at either end and on its own', () => {
    expect(parseIp('::')).toEqual({ family: 6, value: 0n });
    expect(parseIp('::1')).toEqual({ family: 6, value: 1n });
    expect(parseIp('1::')).toEqual({ family: 6, value: 1n << 112n });
    expect(parseIp('1:2:3:4:5:6:7:8')?.value).toBe(0x00010002000300040005000600070008n);
  });

  it('reads a dotted IPv4 tail inside IPv6', () => {
    expect(parseIp('::ffff:1.2.3.4')).toEqual({ family: 6, value: 0xffff01020304n });
    expect(parseIp('::ffff:1.2.3.4')).toEqual(parseIp('::ffff:102:304'));
    expect(parseIp('::1.2.3.4')).toEqual({ family: 6, value: 0x01020304n });
    expect(parseIp('64:ff9b::10.0.0.1')).toEqual(parseIp('64:ff9b::a00:1'));
  });

  it('ignores a zone id: it names an interface, not another address', () => {
    expect(parseIp('fe80::1%eth0')).toEqual(parseIp('fe80::1'));
  });

  it('refuses what is not an address', () => {
    for (const text of [
      '',
      'example.com',
      '1.2.3',
      '256.0.0.1',
      '010.0.0.1', // leading zeros: octal to some parsers, so not accepted at all
      '1.2.3.4.5',
      '::1::2',
      '12345::1',
      '10.0.0.0/8',
    ]) {
      expect(parseIp(text), text).toBeUndefined();
    }
  });
});

describe('parseCidr', () => {
  it('takes a bare address as a single-address network', () => {
    expect(parseCidr('10.0.0.1')).toEqual({ family: 4, base: 0x0a000001n, prefix: 32 });
    expect(parseCidr('::1')).toEqual({ family: 6, base: 1n, prefix: 128 });
  });

  it('clears host bits, so 10.1.2.3/8 is the network 10.0.0.0/8', () => {
    expect(parseCidr('10.1.2.3/8')).toEqual(parseCidr('10.0.0.0/8'));
    expect(parseCidr('fd12:3456::1/8')).toEqual(cidr('fd00::/8'));
  });

  it('refuses prefixes that are too long or not numbers', () => {
    for (const text of [
      '10.0.0.0/33',
      '::/129',
      '10.0.0.0/',
      '10.0.0.0/-1',
      '10.0.0.0/8a',
      '10.0.0.0/1000',
      'host/8',
    ]) {
      expect(parseCidr(text), text).toBeUndefined();
    }
  });
});

describe('cidrContains', () => {
  it('matches exactly the addresses of the range, edges included', () => {
    const net = cidr('172.16.0.0/12');
    expect(cidrContains(net, ip('172.16.0.0'))).toBe(true);
    expect(cidrContains(net, ip('172.31.255.255'))).toBe(true);
    expect(cidrContains(net, ip('172.15.255.255'))).toBe(false);
    expect(cidrContains(net, ip('172.32.0.0'))).toBe(false);
  });

  it('a /0 holds every address of its family and none of the other', () => {
    expect(cidrContains(cidr('0.0.0.0/0'), ip('203.0.113.9'))).toBe(true);
    expect(cidrContains(cidr('::/0'), ip('2001:db8::9'))).toBe(true);
    expect(cidrContains(cidr('0.0.0.0/0'), ip('::1'))).toBe(false);
    expect(cidrContains(cidr('::/0'), ip('127.0.0.1'))).toBe(false);
  });

  it('never matches across families: a mapped address needs unmapIpv4 first', () => {
    expect(cidrContains(cidr('10.0.0.0/8'), ip('::ffff:10.0.0.1'))).toBe(false);
    expect(cidrContains(cidr('10.0.0.0/8'), unmapIpv4(ip('::ffff:10.0.0.1')) as IpAddress)).toBe(
      true,
    );
  });
});

describe('unmapIpv4', () => {
  it('turns ::ffff:a.b.c.d into the IPv4 address it stands for', () => {
    expect(unmapIpv4(ip('::ffff:192.168.1.20'))).toEqual(ip('192.168.1.20'));
    expect(unmapIpv4(ip('::ffff:0:0'))).toEqual(ip('0.0.0.0'));
  });

  it('leaves other addresses alone', () => {
    for (const text of ['10.0.0.1', '::1', '::10.0.0.1', '64:ff9b::a00:1', '1::ffff:a00:1']) {
      expect(unmapIpv4(ip(text)), text).toBeUndefined();
    }
  });
});
