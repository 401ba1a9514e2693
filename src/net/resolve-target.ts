import { lookup } from 'node:dns/promises';
import type { Allowlist } from './allowlist.js';
import { EgressError } from '../errors/egress-errors.js';
import { parseIp, type IpAddress } from './ip-address.js';
import { specialReason } from './special-addresses.js';

/** A URL checked against the rules, with the only addresses the connection may go to. */
export interface Target {
  url: URL;
  /** Host name without IPv6 brackets. */
  host: string;
  port: number;
  /** Admitted DNS answers in resolver order; an IP-literal host is its own single entry. */
  addresses: Array<{ address: string; family: 4 | 6 }>;
}

export type Resolver = (host: string) => Promise<Array<{ address: string; family: number }>>;

export const systemResolver: Resolver = (host) => lookup(host, { all: true, verbatim: true });

export function parseUrl(raw: string, base?: string): URL {
  let url: URL;
  try {
    url = base === undefined ? new URL(raw) : new URL(raw, base);
  } catch {
    throw new EgressError(
      'invalid_url',
      `invalid URL: ${raw} (give a full URL such as https://example.com/page)`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new EgressError(
      'scheme',
      `blocked: only http and https URLs are allowed, not ${url.protocol.replace(/:$/, '')}`,
    );
  }
  if (url.username || url.password) {
    throw new EgressError('invalid_url', 'blocked: URLs with embedded credentials are not allowed');
  }
  return url;
}

/**
 * Resolves the host once and keeps the addresses the rules admit. The caller connects only to
 * those, so a second DNS answer (rebinding) can never change where the request goes.
 */
export async function resolveTarget(
  url: URL,
  allow: Allowlist,
  resolver: Resolver,
): Promise<Target> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  const literal = parseIp(host);
  let candidates: Array<{ text: string; ip: IpAddress }>;
  if (literal) {
    candidates = [{ text: host, ip: literal }];
  } else {
    let answers: Array<{ address: string; family: number }>;
    try {
      answers = await resolver(host);
    } catch (err) {
      const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      throw new EgressError('dns', `cannot resolve ${host}: ${reason}`);
    }
    candidates = answers.flatMap((a) => {
      const ip = parseIp(a.address);
      return ip ? [{ text: a.address, ip }] : [];
    });
    if (candidates.length === 0) {
      throw new EgressError('dns', `cannot resolve ${host}: no addresses`);
    }
  }
  const admitted: Target['addresses'] = [];
  let refusal: string | undefined;
  for (const { text, ip } of candidates) {
    const reason = specialReason(ip);
    if (reason === undefined || allow.permits(host, ip, port)) {
      admitted.push({ address: text, family: ip.family });
    } else {
      refusal ??= describe(host, text, ip, port, reason);
    }
  }
  if (admitted.length === 0) throw new EgressError('blocked', refusal as string);
  return { url, host, port, addresses: admitted };
}

function describe(host: string, text: string, ip: IpAddress, port: number, reason: string): string {
  const via = host === text ? host : `${host} (${text})`;
  const entry = ip.family === 6 ? `[${text}]:${port}` : `${text}:${port}`;
  return `blocked: ${via} is ${reason}; add it to egress.allow (e.g. "${entry}") to permit it`;
}
