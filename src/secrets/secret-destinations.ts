import { EgressError } from '../errors/egress-errors.js';
import type { OutgoingRequest } from '../net/egress.js';
import { createRedactor, type SecretEntry } from './redactor.js';

/**
 * What a run may do with a secret it sends out: `bound` lets a secret go only to the hosts its
 * `# @secrets: NAME -> host` line names (none for a secret declared without `->`); `any` lets a
 * secret without bound hosts go anywhere (`scripts.secret_egress`).
 */
export type SecretEgressPolicy = 'bound' | 'any';

const defaultPorts: Record<string, string> = { 'http:': '80', 'https:': '443' };

/** Whether `url` is one of `destinations` (host, `*.suffix` or IP, optionally `:port`). */
export function isDestination(url: URL, destinations: readonly string[]): boolean {
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  const port = url.port || defaultPorts[url.protocol] || '';
  return destinations.some((entry) => {
    const m = /^(.*?)(?::(\d+))?$/.exec(entry) as RegExpExecArray;
    const pattern = m[1] as string;
    if (m[2] !== undefined && m[2] !== port) return false;
    if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1));
    return host === pattern;
  });
}

/**
 * Where the host put one secret in a request: `url`, `body`, or `header <name>` (the name
 * lower-case, as sent).
 */
export interface PlacedSecret {
  name: string;
  place: string;
}

/** A script's `# @secrets:` bindings as a run enforces them (from the approved source). */
export interface SecretBindings {
  destinations: Readonly<Record<string, readonly string[]>>;
  placements: Readonly<Record<string, string>>;
  policy: SecretEgressPolicy;
}

const describePlace = (place: string) => (place.startsWith('header ') ? place : `the ${place}`);

/**
 * The exact check of a request whose secrets the host placed itself (opaque secrets): each one
 * must be in the place its binding admits, and every hop's host (and port) must be one of its
 * destinations. Throws before anything is sent, naming the secret and what it is bound to.
 */
export function checkPlacedSecrets(
  placed: readonly PlacedSecret[],
  url: URL,
  bindings: SecretBindings,
): void {
  const destinations = new Map(Object.entries(bindings.destinations));
  const placements = new Map(Object.entries(bindings.placements));
  for (const { name, place } of placed) {
    const admitted = placements.get(name);
    if (admitted !== undefined && admitted.toLowerCase() !== place) {
      throw new EgressError(
        'secret_destination',
        `request to ${url.host} refused: it carries secret ${name} in ${describePlace(place)}, which its # @secrets: line admits only in ${describePlace(admitted)}`,
      );
    }
    const hosts = destinations.get(name) ?? [];
    if (hosts.length === 0 && bindings.policy === 'any') continue;
    if (isDestination(url, hosts)) continue;
    const where =
      hosts.length > 0
        ? `only to ${hosts.join(', ')}`
        : 'nowhere (no "->" destinations in its # @secrets: line)';
    throw new EgressError(
      'secret_destination',
      `request to ${url.host} refused: it carries secret ${name} in ${describePlace(place)}, which may be sent ${where}`,
    );
  }
}

function textOf(body: string | Uint8Array | undefined): string {
  if (body === undefined) return '';
  return typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
}

/**
 * The check every outgoing request of a script run passes under `scripts.secret_values: plain`,
 * where a script holds values and the host cannot know where it put them (URL with its host,
 * headers, body, on each redirect hop): a secret of the run found in it, in any encoding or case
 * the redactor knows, must be bound to the request's host. Built once per run; null when the
 * run holds no secret value, so such runs pay nothing.
 */
export function createSecretEgressGuard(
  secrets: readonly SecretEntry[],
  destinations: Readonly<Record<string, readonly string[]>>,
  policy: SecretEgressPolicy,
): ((request: OutgoingRequest) => void) | null {
  const scanner = createRedactor(secrets);
  if (scanner.automaton === null) return null;
  const bound = new Map(Object.entries(destinations));
  return (request) => {
    const texts = [request.url.href, textOf(request.body)];
    for (const [name, value] of Object.entries(request.headers)) texts.push(name, value);
    const found = new Set(texts.flatMap((text) => scanner.namesIn(text)));
    for (const name of found) {
      const hosts = bound.get(name) ?? [];
      if (hosts.length === 0 && policy === 'any') continue;
      if (isDestination(request.url, hosts)) continue;
      const where =
        hosts.length > 0
          ? `only to ${hosts.join(', ')}`
          : 'nowhere (no "->" destinations in its # @secrets: line)';
      throw new EgressError(
        'secret_destination',
        `request to ${scanner.redact(request.url.host)} refused: it carries secret ${name}, which may be sent ${where}`,
      );
    }
  };
}
