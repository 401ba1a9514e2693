import { describe, expect, it } from 'vitest';
import { createAllowlist, normaliseHost, parseAllowEntry } from '../../src/net/allowlist.js';
import { AllowlistError } from '../../src/errors/egress-errors.js';
import { parseCidr, parseIp, type IpAddress } from '../../src/net/ip-address.js';

const ip = (text: string): IpAddress => {
  const parsed = parseIp(text);
  if (!parsed) throw new Error(`test address ${text} does not parse`);
  return parsed;
};

describe('parseAllowEntry', () => {
  it('reads host names, lower-cased and without a trailing dot', () => {
    expect(parseAllowEntry('Intranet.Example.COM.')).toEqual({
      kind: 'host',
      host: 'intranet.example.com',
      text: 'Intranet.Example.COM.',
    });
    expect(parseAllowEntry('  nas:5000  ')).toEqual({
      kind: 'host',
      host: 'nas',
      port: 5000,
      text: 'nas:5000',
    });
  });

  it('reads addresses and networks, with or without a port', () => {
    expect(parseAllowEntry('10.0.0.1')).toEqual({
      kind: 'network',
      cidr: parseCidr('10.0.0.1/32'),
      text: '10.0.0.1',
    });
    expect(parseAllowEntry('192.168.0.0/16:443')).toMatchObject({
      kind: 'network',
      cidr: parseCidr('192.168.0.0/16'),
      port: 443,
    });
    expect(parseAllowEntry('fd00::/8')).toMatchObject({
      kind: 'network',
      cidr: parseCidr('fd00::/8'),
    });
  });

  it('needs brackets for an IPv6 address with a port, since ::1:8080 is itself an address', () => {
    expect(parseAllowEntry('[::1]:8080')).toMatchObject({
      kind: 'network',
      cidr: parseCidr('::1'),
      port: 8080,
    });
    expect(parseAllowEntry('[fd00::/8]')).toMatchObject({
      kind: 'network',
      cidr: parseCidr('fd00::/8'),
    });
    const bare = parseAllowEntry('::1:8080');
    expect(bare).toMatchObject({ kind: 'network', cidr: parseCidr('::1:8080') });
    expect(bare.port).toBeUndefined();
  });

  it('refuses ports that are not numbers or out of range', () => {
    expect(() => parseAllowEntry('nas:http')).toThrow(/port must be a number/);
    expect(() => parseAllowEntry('nas:')).toThrow(/port must be a number/);
    expect(() => parseAllowEntry('nas:0')).toThrow(/port 0 is out of range/);
    expect(() => parseAllowEntry('nas:65536')).toThrow(/port 65536 is out of range/);
    expect(() => parseAllowEntry('[::1]:70000')).toThrow(/out of range/);
    expect(parseAllowEntry('nas:65535').port).toBe(65535);
  });

  it('refuses malformed networks instead of reading them as host names', () => {
    expect(() => parseAllowEntry('10.0.0.0/33')).toThrow(/not a valid IP network/);
    expect(() => parseAllowEntry('fd00::/200')).toThrow(/not a valid IP network/);
    expect(() => parseAllowEntry('example.com/path')).toThrow(/not a valid IP network/);
  });

  it('refuses wildcards, URLs and other things that are not a host name', () => {
    for (const entry of ['*.example.com', 'http://example.com', 'bad host', '-lead.example', '']) {
      expect(() => parseAllowEntry(entry), entry).toThrow(AllowlistError);
    }
  });
});

describe('normaliseHost', () => {
  it('compares names the way DNS does: case-blind, trailing dot optional', () => {
    expect(normaliseHost('NAS.Local.')).toBe('nas.local');
    expect(normaliseHost('nas.local')).toBe('nas.local');
  });
});

describe('createAllowlist', () => {
  it('admits nothing when empty', () => {
    expect(createAllowlist([]).permits('localhost', ip('127.0.0.1'), 80)).toBe(false);
  });

  it('refuses to build from a malformed entry', () => {
    expect(() => createAllowlist(['10.0.0.0/8', 'not valid'])).toThrow(AllowlistError);
  });

  it('admits a listed host name by name, whatever address it resolves to', () => {
    const allow = createAllowlist(['NAS.local']);
    expect(allow.permits('nas.local', ip('192.168.1.5'), 80)).toBe(true);
    expect(allow.permits('NAS.LOCAL.', ip('10.9.9.9'), 8080)).toBe(true);
    // The name is what was listed: another name for the same address is not.
    expect(allow.permits('printer.local', ip('192.168.1.5'), 80)).toBe(false);
    // Nor is a sub-domain.
    expect(allow.permits('evil.nas.local', ip('192.168.1.5'), 80)).toBe(false);
  });

  it('admits a network by address, whatever name reached it', () => {
    const allow = createAllowlist(['192.168.1.0/24']);
    expect(allow.permits('anything.test', ip('192.168.1.200'), 80)).toBe(true);
    expect(allow.permits('anything.test', ip('192.168.2.1'), 80)).toBe(false);
  });

  it('limits an entry with a port to that port', () => {
    const allow = createAllowlist(['127.0.0.1:8089', 'nas:5000']);
    expect(allow.permits('127.0.0.1', ip('127.0.0.1'), 8089)).toBe(true);
    expect(allow.permits('127.0.0.1', ip('127.0.0.1'), 6379)).toBe(false);
    expect(allow.permits('nas', ip('10.0.0.2'), 5000)).toBe(true);
    expect(allow.permits('nas', ip('10.0.0.2'), 22)).toBe(false);
  });

  it('admits an IPv4-mapped IPv6 address through the IPv4 entry it stands for', () => {
    const allow = createAllowlist(['10.0.0.0/8']);
    expect(allow.permits('x', ip('::ffff:10.1.2.3'), 80)).toBe(true);
    expect(allow.permits('x', ip('::ffff:11.1.2.3'), 80)).toBe(false);
    // Only the mapped form: other IPv6 forms embedding the address are separate destinations.
    expect(allow.permits('x', ip('64:ff9b::a01:203'), 80)).toBe(false);
  });

  // Only the address used to be unmapped, never the entry: an entry written as ::ffff:10.0.0.1
  // did not admit a connection to 10.0.0.1.
  it('admits an IPv4 address through an entry written in its IPv4-mapped form', () => {
    const allow = createAllowlist(['::ffff:10.0.0.1', '::ffff:192.168.0.0/112']);
    expect(allow.permits('x', ip('::ffff:10.0.0.1'), 80)).toBe(true);
    expect(allow.permits('x', ip('10.0.0.1'), 80)).toBe(true);
    expect(allow.permits('x', ip('192.168.7.9'), 80)).toBe(true);
    expect(allow.permits('x', ip('192.169.0.1'), 80)).toBe(false);
    expect(allow.permits('x', ip('10.0.0.2'), 80)).toBe(false);
  });
});
