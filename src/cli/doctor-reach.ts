import type { LoadedConfig } from '../config/load.js';
import { parseAllowEntry } from '../net/allowlist.js';
import { cidrContains, parseCidr, type Cidr } from '../net/ip-address.js';
import { isLoopbackHost, loopbackRanges } from '../net/loopback.js';
import type { Finding } from './doctor-compose.js';

const metadata = 'the cloud metadata address, which hands out the instance credentials';
const loopback = 'loopback: services on this host (Redis, the engine, Steward itself)';
const linkLocal = 'link-local addresses (the cloud metadata address among them)';

/** What an egress entry must not open, narrowest first: the first overlap names the reason. */
const guarded: ReadonlyArray<[Cidr, string]> = (
  [
    ['169.254.169.254/32', metadata],
    ['fd00:ec2::254/128', metadata],
    [loopbackRanges.ipv4, loopback],
    [loopbackRanges.ipv6, loopback],
    // Connecting to 0.0.0.0 reaches this host.
    ['0.0.0.0/32', loopback],
    ['169.254.0.0/16', linkLocal],
    ['fe80::/10', linkLocal],
  ] as const
).map(([text, reason]) => [parseCidr(text) as Cidr, reason]);

const metadataHosts = new Set(['metadata', 'metadata.google.internal']);

function overlaps(a: Cidr, b: Cidr): boolean {
  if (a.family !== b.family) return false;
  const [wide, narrow] = a.prefix <= b.prefix ? [a, b] : [b, a];
  return cidrContains(wide, { family: narrow.family, value: narrow.base });
}

/** What an `egress.allow` entry opens to scripts and the AI's web tools that it should not. */
function guardedReach(entry: string): string | undefined {
  const parsed = parseAllowEntry(entry);
  if (parsed.kind === 'host') {
    if (isLoopbackHost(parsed.host) || parsed.host.endsWith('.localhost')) return loopback;
    return metadataHosts.has(parsed.host) ? metadata : undefined;
  }
  return guarded.find(([range]) => overlaps(range, parsed.cidr))?.[1];
}

/** A URL that crosses the network in plain http (loopback ones stay on this host). */
function plainHttp(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' && !isLoopbackHost(parsed.hostname.toLowerCase());
  } catch {
    return false;
  }
}

/**
 * Where the configuration lets data go that it should not: secrets to any host, scripts to this
 * host or the cloud metadata service, schedule output and admin pages over plain http.
 */
export function examineReach(config: LoadedConfig): Finding[] {
  const findings: Finding[] = [];
  const add = (check: string, problem: string, fix: string) =>
    findings.push({ check, problem, fix });

  if (config.scripts.secret_egress === 'any') {
    add(
      'secret egress',
      'scripts.secret_egress is "any": a secret declared without destinations may be sent to any host a script names',
      'declare where each secret goes (`# @secrets: NAME -> host`) and set scripts.secret_egress: bound (the default)',
    );
  }

  for (const entry of config.egress.allow) {
    const reason = guardedReach(entry);
    if (reason) {
      add(
        'egress',
        `egress.allow entry "${entry}" lets scripts and the AI's web tools reach ${reason}`,
        `remove "${entry}" from egress.allow; if a service there must be reached, list only its address and port`,
      );
    }
  }

  for (const [name, url] of Object.entries(config.webhooks.channels)) {
    if (plainHttp(url)) {
      add(
        'plain http',
        `webhooks.channels.${name} is ${url}: schedule output crosses the network unencrypted, readable and changeable on the way`,
        `use an https: URL for webhooks.channels.${name}`,
      );
    }
  }
  for (const origin of config.admin.cors.allowed_origins) {
    if (plainHttp(origin)) {
      add(
        'plain http',
        `admin.cors.allowed_origins lists ${origin}: a page served over plain http can be changed on the way and then call the API with the administrator's token`,
        `list the https: origin instead of ${origin}`,
      );
    }
  }
  return findings;
}
