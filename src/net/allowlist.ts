import { isIP } from 'node:net';
import { AllowlistError } from '../errors/egress-errors.js';
import { cidrContains, unmapIpv4, parseCidr, type Cidr, type IpAddress } from './ip-address.js';

/** One parsed `egress.allow` entry. */
export type AllowEntry =
  | { kind: 'network'; cidr: Cidr; port?: number; text: string }
  | { kind: 'host'; host: string; port?: number; text: string };

/**
 * Parses `host`, `ip`, `cidr`, each optionally followed by `:port`. IPv6 with a port must be
 * bracketed (`[::1]:8080`), since a bare `::1:8080` is itself a valid address.
 */
export function parseAllowEntry(raw: string): AllowEntry {
  const text = raw.trim();
  let target = text;
  let portText: string | undefined;
  const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracket) {
    target = bracket[1] as string;
    portText = bracket[2];
  } else if ((text.match(/:/g) ?? []).length === 1) {
    const at = text.lastIndexOf(':');
    target = text.slice(0, at);
    portText = text.slice(at + 1);
    if (!/^\d+$/.test(portText))
      throw new AllowlistError(`egress.allow entry "${raw}": port must be a number`);
  }
  const port = portText === undefined ? undefined : Number(portText);
  if (port !== undefined && (port < 1 || port > 65535)) {
    throw new AllowlistError(`egress.allow entry "${raw}": port ${port} is out of range`);
  }
  const withPort = port === undefined ? {} : { port };
  const cidr = parseCidr(target);
  if (cidr) return { kind: 'network', cidr: asIpv4(cidr), text, ...withPort };
  if (target.includes('/') || isIP(target.split('/')[0] ?? '')) {
    throw new AllowlistError(`egress.allow entry "${raw}" is not a valid IP network`);
  }
  if (!/^[A-Za-z0-9_]([A-Za-z0-9_.-]*[A-Za-z0-9_])?\.?$/.test(target)) {
    throw new AllowlistError(
      `egress.allow entry "${raw}" is neither a host name, an IP nor a CIDR`,
    );
  }
  return { kind: 'host', host: normaliseHost(target), text, ...withPort };
}

/**
 * An entry written in IPv4-mapped form (`::ffff:10.0.0.1`, `::ffff:10.0.0.0/104`) as the IPv4
 * network it stands for: addresses are compared unmapped, so the entry must be too.
 */
function asIpv4(cidr: Cidr): Cidr {
  if (cidr.family !== 6 || cidr.prefix < 96 || cidr.base >> 32n !== 0xffffn) return cidr;
  return { family: 4, base: cidr.base & 0xffffffffn, prefix: cidr.prefix - 96 };
}

export function normaliseHost(host: string): string {
  return host.toLowerCase().replace(/\.$/, '');
}

export interface Allowlist {
  /** Whether a connection to `ip`:`port`, reached through the name `host`, is listed. */
  permits(host: string, ip: IpAddress, port: number): boolean;
}

export function createAllowlist(entries: readonly string[]): Allowlist {
  const parsed = entries.map(parseAllowEntry);
  return {
    permits(host, ip, port) {
      const name = normaliseHost(host);
      // A mapped ::ffff:10.0.0.1 is listed by an IPv4 entry for 10.0.0.1 and vice versa.
      const forms = [ip, unmapIpv4(ip)].filter((x): x is IpAddress => x !== undefined);
      return parsed.some((entry) => {
        if (entry.port !== undefined && entry.port !== port) return false;
        if (entry.kind === 'host') return entry.host === name;
        return forms.some((form) => cidrContains(entry.cidr, form));
      });
    },
  };
}
