import { cidrContains, parseCidr, type Cidr, type IpAddress } from './ip-address.js';
import { loopbackRanges } from './loopback.js';

/**
 * Address classes that must not be reached from the outside world's behalf (SSRF targets).
 * Order matters: the first match names the reason, so narrow ranges (metadata) come before
 * the wider ones that contain them (link-local, unique-local).
 */
const table: ReadonlyArray<[string, string]> = [
  ['169.254.169.254/32', 'a cloud metadata address'],
  ['fd00:ec2::254/128', 'a cloud metadata address'],
  ['0.0.0.0/32', 'the unspecified address'],
  ['0.0.0.0/8', 'a "this network" address'],
  [loopbackRanges.ipv4, 'a loopback address'],
  ['10.0.0.0/8', 'a private address'],
  ['172.16.0.0/12', 'a private address'],
  ['192.168.0.0/16', 'a private address'],
  ['169.254.0.0/16', 'a link-local address'],
  ['100.64.0.0/10', 'a carrier-grade NAT address'],
  ['192.0.0.0/24', 'an IETF protocol address'],
  ['192.88.99.0/24', 'a 6to4 relay anycast address'],
  ['198.18.0.0/15', 'a benchmarking address'],
  ['224.0.0.0/4', 'a multicast address'],
  ['255.255.255.255/32', 'the broadcast address'],
  ['240.0.0.0/4', 'a reserved address'],
  ['::/128', 'the unspecified address'],
  [loopbackRanges.ipv6, 'a loopback address'],
  // Translators and tunnels forward to whatever IPv4 address they carry, local ones included.
  ['64:ff9b:1::/48', 'a local-use NAT64 address'],
  ['2001::/32', 'a Teredo tunnel address'],
  ['fc00::/7', 'a unique-local address'],
  ['fe80::/10', 'a link-local address'],
  ['fec0::/10', 'a site-local address'],
  ['ff00::/8', 'a multicast address'],
];

const ranges: ReadonlyArray<[Cidr, string]> = table.map(([text, reason]) => [
  parseCidr(text) as Cidr,
  reason,
]);

/** IPv6 forms that carry an IPv4 address, which is what the packet finally reaches. */
const embedding: ReadonlyArray<[Cidr, (value: bigint) => bigint]> = [
  [parseCidr('::ffff:0:0/96') as Cidr, (v) => v & 0xffffffffn], // IPv4-mapped
  [parseCidr('::ffff:0:0:0/96') as Cidr, (v) => v & 0xffffffffn], // SIIT IPv4-translated
  [parseCidr('::/96') as Cidr, (v) => v & 0xffffffffn], // IPv4-compatible (deprecated)
  [parseCidr('64:ff9b::/96') as Cidr, (v) => v & 0xffffffffn], // NAT64 well-known prefix
  [parseCidr('2002::/16') as Cidr, (v) => (v >> 80n) & 0xffffffffn], // 6to4
];

/** The embedded IPv4 address of a mapped/translated IPv6 address, if any. */
export function embeddedIpv4(ip: IpAddress): IpAddress | undefined {
  if (ip.family !== 6 || ip.value <= 1n) return undefined; // :: and ::1 are themselves
  for (const [cidr, extract] of embedding) {
    if (cidrContains(cidr, ip)) return { family: 4, value: extract(ip.value) };
  }
  return undefined;
}

/** Why an address is off limits by default, or undefined for an ordinary public address. */
export function specialReason(ip: IpAddress): string | undefined {
  for (const [cidr, reason] of ranges) if (cidrContains(cidr, ip)) return reason;
  const inner = embeddedIpv4(ip);
  if (inner) {
    const reason = specialReason(inner);
    if (reason) return `${reason} (embedded in IPv6)`;
  }
  return undefined;
}
