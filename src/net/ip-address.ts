import { isIPv4, isIPv6 } from 'node:net';

/** An IP address as a number plus its family, so ranges can be compared with plain arithmetic. */
export interface IpAddress {
  family: 4 | 6;
  value: bigint;
}

export function parseIp(text: string): IpAddress | undefined {
  // Zone ids (fe80::1%eth0) name an interface, not a different address.
  const bare = text.replace(/%.*$/, '');
  if (isIPv4(bare)) return { family: 4, value: parseV4(bare) };
  if (isIPv6(bare)) return { family: 6, value: parseV6(bare) };
  return undefined;
}

function parseV4(text: string): bigint {
  return text.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function parseV6(text: string): bigint {
  let head = text;
  let tailV4: bigint | undefined;
  const lastColon = text.lastIndexOf(':');
  const last = text.slice(lastColon + 1);
  if (last.includes('.')) {
    tailV4 = parseV4(last);
    head = text.slice(0, lastColon + 1) + '0:0';
  }
  const [left = '', right] = head.split('::');
  const leftGroups = left === '' ? [] : left.split(':');
  const rightGroups = right === undefined || right === '' ? [] : right.split(':');
  const missing = 8 - leftGroups.length - rightGroups.length;
  const groups = [
    ...leftGroups,
    ...Array<string>(right === undefined ? 0 : missing).fill('0'),
    ...rightGroups,
  ];
  let value = groups.reduce((acc, group) => (acc << 16n) | BigInt(parseInt(group, 16)), 0n);
  if (tailV4 !== undefined) value = (value & ~0xffffffffn) | tailV4;
  return value;
}

/** A network: an address and a prefix length. A single address is a /32 or /128. */
export interface Cidr {
  family: 4 | 6;
  base: bigint;
  prefix: number;
}

export function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf('/');
  const ip = parseIp(slash === -1 ? text : text.slice(0, slash));
  if (!ip) return undefined;
  const bits = ip.family === 4 ? 32 : 128;
  const prefixText = slash === -1 ? String(bits) : text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  if (prefix > bits) return undefined;
  return { family: ip.family, base: ip.value & mask(bits, prefix), prefix };
}

export function cidrContains(cidr: Cidr, ip: IpAddress): boolean {
  if (cidr.family !== ip.family) return false;
  const bits = ip.family === 4 ? 32 : 128;
  return (ip.value & mask(bits, cidr.prefix)) === cidr.base;
}

function mask(bits: number, prefix: number): bigint {
  const all = (1n << BigInt(bits)) - 1n;
  return all ^ ((1n << BigInt(bits - prefix)) - 1n);
}

/** `::ffff:a.b.c.d` as the IPv4 address it stands for; other addresses unchanged-or-undefined. */
export function unmapIpv4(ip: IpAddress): IpAddress | undefined {
  if (ip.family === 6 && ip.value >> 32n === 0xffffn)
    return { family: 4, value: ip.value & 0xffffffffn };
  return undefined;
}
