/**
 * "This machine", defined once. Host and Origin checks (the refresh cookie's Secure flag, the
 * tool server's DNS-rebinding guard) compare host names with `loopbackHosts`; local-only
 * listeners and their clients use `loopbackAddress`; egress refuses `loopbackRanges` unless
 * `egress.allow` lists them.
 */

/**
 * Host names, lowercased and without port, that only reach this machine. A URL or Host header
 * writes the IPv6 address in brackets; some parsers hand it back without, so both forms count.
 */
export const loopbackHosts: ReadonlySet<string> = new Set([
  'localhost',
  '127.0.0.1',
  '[::1]',
  '::1',
]);

export function isLoopbackHost(hostname: string): boolean {
  return loopbackHosts.has(hostname);
}

/** The address a local-only server binds to and a local client connects to. */
export const loopbackAddress = '127.0.0.1';

/** The loopback networks, as CIDR text. */
export const loopbackRanges = { ipv4: '127.0.0.0/8', ipv6: '::1/128' } as const;
