import { lookup } from 'node:dns/promises';
import type { Allowlist } from './allowlist.js';
import { EgressError } from './egress-error.js';
import { formatIp, parseIp, type IpAddress } from './ip-address.js';
import { specialReason } from './special-addresses.js';

/** A URL checked against the rules, with the one address the connection must go to. */
export interface Target {
  url: URL;
  /** Host name without IPv6 brackets. */
  host: string;
  port: number;
  address: string;
  family: 4 | 6;
}

export type Resolver = (host: string) => Promise<Array<{ address: string; family: number }>>;

export const systemResolver: Resolver = (host) => lookup(host, { all: true, verbatim: true });

export function parseUrl(raw: string, base?: string): URL {
  let url: URL;
  try {
    url = base === undefined ? new URL(raw) : new URL(raw, base);
  } catch {
    throw new EgressError('invalid_url', `invalid URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new EgressError('scheme', `blocked: only http and https URLs are allowed, not ${url.protocol.replace(/:$/, '')}`);
  }
  if (url.username || url.password) {
    throw new EgressError('invalid_url', 'blocked: URLs with embedded credentials are not allowed');
  }
  return url;
}

/**
 * Resolves the host once and picks an address the rules admit. The caller connects to exactly
 * that address, so a second DNS answer (rebinding) can never change where the request goes.
 */
export async function resolveTarget(url: URL, allow: Allowlist, resolver: Resolver): Promise<Target> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  const literal = parseIp(host);
  let candidates: IpAddress[];
  if (literal) {
    candidates = [literal];
  } else {
    let answers: Array<{ address: string; family: number }>;
    try {
      answers = await resolver(host);
    } catch (err) {
      throw new EgressError('dns', `cannot resolve ${host}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    candidates = answers.map((a) => parseIp(a.address)).filter((ip): ip is IpAddress => ip !== undefined);
    if (candidates.length === 0) throw new EgressError('dns', `cannot resolve ${host}: no addresses`);
  }
  let refusal: string | undefined;
  for (const ip of candidates) {
    const reason = specialReason(ip);
    if (reason === undefined || allow.permits(host, ip, port)) {
      return { url, host, port, address: literal ? host : formatIp(ip), family: ip.family };
    }
    refusal ??= describe(host, ip, port, reason);
  }
  throw new EgressError('blocked', refusal as string);
}

function describe(host: string, ip: IpAddress, port: number, reason: string): string {
  const shown = formatIp(ip);
  const via = host === shown || parseIp(host) ? host : `${host} (${shown})`;
  const entry = ip.family === 6 ? `[${parseIp(host) ? host : shown}]:${port}` : `${parseIp(host) ? host : shown}:${port}`;
  return `blocked: ${via} is ${reason}; add it to egress.allow (e.g. "${entry}") to permit it`;
}
