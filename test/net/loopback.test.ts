import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { cidrContains, parseCidr, parseIp } from '../../src/net/ip-address.js';
import {
  isLoopbackHost,
  loopbackAddress,
  loopbackHosts,
  loopbackRanges,
} from '../../src/net/loopback.js';

describe('loopback', () => {
  it('counts localhost, 127.0.0.1 and ::1 (bracketed or not) as this machine', () => {
    for (const host of ['localhost', '127.0.0.1', '[::1]', '::1']) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
    expect([...loopbackHosts].sort()).toEqual(['127.0.0.1', '::1', '[::1]', 'localhost']);
  });

  it('refuses look-alikes: ports, other loopback addresses, suffixes and the wildcard address', () => {
    for (const host of [
      'localhost:3000',
      '127.0.0.1:80',
      'localhost.',
      'localhost.evil.example',
      'evil-localhost',
      '127.0.0.2',
      '0.0.0.0',
      '::',
      '[::]',
      '',
    ]) {
      expect(isLoopbackHost(host), host).toBe(false);
    }
  });

  it('compares exactly: callers lowercase first', () => {
    expect(isLoopbackHost('LOCALHOST')).toBe(false);
    expect(isLoopbackHost('LOCALHOST'.toLowerCase())).toBe(true);
  });

  it('binds local-only listeners to 127.0.0.1, which is one of the loopback hosts', async () => {
    expect(loopbackAddress).toBe('127.0.0.1');
    expect(isLoopbackHost(loopbackAddress)).toBe(true);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, loopbackAddress, resolve));
    try {
      expect(server.address()).toMatchObject({ address: '127.0.0.1', family: 'IPv4' });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('names the loopback networks as CIDR text that parses and holds exactly the loopback addresses', () => {
    expect(loopbackRanges).toEqual({ ipv4: '127.0.0.0/8', ipv6: '::1/128' });
    const v4 = parseCidr(loopbackRanges.ipv4);
    const v6 = parseCidr(loopbackRanges.ipv6);
    if (!v4 || !v6) throw new Error('loopback ranges do not parse');
    const ip = (text: string) => {
      const parsed = parseIp(text);
      if (!parsed) throw new Error(`not an address: ${text}`);
      return parsed;
    };
    expect(cidrContains(v4, ip('127.0.0.1'))).toBe(true);
    expect(cidrContains(v4, ip('127.255.255.254'))).toBe(true);
    expect(cidrContains(v4, ip('128.0.0.1'))).toBe(false);
    expect(cidrContains(v6, ip('::1'))).toBe(true);
    expect(cidrContains(v6, ip('::2'))).toBe(false);
  });
});
