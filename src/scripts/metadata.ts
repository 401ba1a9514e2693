import { parse as parseDomain } from 'tldts';
import type { ScriptMetadata } from '../contracts/script-record.js';
import { isSecretName } from '../contracts/secret-names.js';

/**
 * A destination a secret may be sent to: a host name, a `*.` suffix pattern or an IP address
 * (IPv6 in brackets), optionally with `:port`. Kept lower-case, as URL hosts are.
 */
const destinationPattern =
  /^(?:(?:\*\.)?[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;
/** An HTTP field name (RFC 9110 `token`). */
const headerNamePattern = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export interface MetadataProblem {
  message: string;
  line: number;
  column: number;
}

interface Parsed {
  meta: ScriptMetadata;
  problems: MetadataProblem[];
}

/**
 * Why a `*.suffix` pattern is refused, or null: a wildcard must sit below a registrable domain
 * (`*.example.org`), never cover a public suffix (`*.com`, `*.co.uk`, `*.github.io`), where
 * anyone may register a name. The Public Suffix List decides, its private section included.
 */
function wildcardProblem(host: string): string | null {
  if (!host.startsWith('*.')) return null;
  const suffix = host.slice(2).replace(/:\d+$/, '');
  const parsed = parseDomain(suffix, { allowPrivateDomains: true });
  if (parsed.isIp || /^\d+$/.test(suffix.slice(suffix.lastIndexOf('.') + 1))) {
    return `@secrets: "${host}" is a wildcard over IP addresses; list the address itself`;
  }
  if (parsed.domain === null) {
    return `@secrets: "${host}" covers the public suffix "${suffix}", where anyone may register a name; a wildcard must sit below a registrable domain (as *.example.org)`;
  }
  return null;
}

/** `header NAME`, `url` or `body` after `in`, as the metadata keeps it; null when malformed. */
function placementOf(text: string): string | null {
  const words = text.trim().split(/\s+/);
  const kind = words[0]?.toLowerCase();
  if ((kind === 'url' || kind === 'body') && words.length === 1) return kind;
  if (kind === 'header' && words.length === 2 && headerNamePattern.test(words[1] as string)) {
    return `header ${words[1] as string}`;
  }
  return null;
}

/** The lines of the leading comment block (blank lines included), without splitting the rest. */
function* leadingLines(source: string): Generator<string> {
  let start = 0;
  while (start <= source.length) {
    const end = source.indexOf('\n', start);
    const line = source.slice(start, end < 0 ? source.length : end).replace(/\r$/, '');
    const trimmed = line.trim();
    if (trimmed !== '' && !trimmed.startsWith('#')) return;
    yield line;
    if (end < 0) return;
    start = end + 1;
  }
}

/**
 * Reads the leading comment block only: a `# @secrets:` line further down is code commentary,
 * not a declaration, and must not widen what the approval covers. `# @secrets: NAME -> host, …`
 * binds one secret to the hosts it may be sent to, and `… in header H`, `… in url` or
 * `… in body` to the one place of a request it may be put; lines accumulate.
 */
function parse(source: string): Parsed {
  const meta: ScriptMetadata = { description: '', author: '', version: '', secrets: [] };
  const problems: MetadataProblem[] = [];
  const destinations = new Map<string, string[]>();
  const placements = new Map<string, string>();
  const declare = (name: string) => {
    if (!meta.secrets.includes(name)) meta.secrets.push(name);
  };
  let i = -1;
  for (const raw of leadingLines(source)) {
    i++;
    const line = raw.trim();
    const match = /^#\s*@(description|author|version|secrets)\s*:\s*(.*)$/i.exec(line);
    if (!match) continue;
    const key = (match[1] as string).toLowerCase() as
      'description' | 'author' | 'version' | 'secrets';
    const value = (match[2] as string).trim();
    const column = raw.indexOf(match[2] as string) + 1;
    const problem = (message: string, at: number) =>
      problems.push({ message, line: i + 1, column: at });
    if (key !== 'secrets') {
      meta[key] = value;
      continue;
    }
    const arrow = value.indexOf('->');
    if (arrow < 0) {
      for (const name of value.split(/[\s,]+/)) if (name !== '') declare(name);
      continue;
    }
    const name = value.slice(0, arrow).trim();
    if (!isSecretName(name)) {
      problem(`@secrets: "${name}" before "->" must be one secret name`, column);
      continue;
    }
    declare(name);
    const hosts = destinations.get(name) ?? [];
    let listed = value.slice(arrow + 2);
    // Host names hold no spaces, so the first free-standing "in" starts the placement.
    const inWord = /\sin(?:\s|$)/i.exec(listed);
    if (inWord) {
      const text = listed.slice(inWord.index + 1);
      const at = column + arrow + 2 + inWord.index + 1;
      listed = listed.slice(0, inWord.index);
      const placement = placementOf(text.slice(2));
      const earlier = placements.get(name);
      if (placement === null) {
        problem(`@secrets: "${text.trim()}" must be "in header NAME", "in url" or "in body"`, at);
      } else if (earlier !== undefined && earlier.toLowerCase() !== placement.toLowerCase()) {
        problem(
          `@secrets: ${name} is already bound to "in ${earlier}"; a secret has one place`,
          at,
        );
      } else placements.set(name, placement);
    }
    let offset = column + arrow + 2;
    for (const part of listed.split(',')) {
      const host = part.trim().toLowerCase();
      const at = offset + part.indexOf(part.trim());
      offset += part.length + 1;
      if (!destinationPattern.test(host)) {
        problem(
          `@secrets: "${part.trim()}" is not a destination (a host name, *.suffix or IP, optionally :port)`,
          at,
        );
        continue;
      }
      const wildcard = wildcardProblem(host);
      if (wildcard !== null) {
        problem(wildcard, at);
        continue;
      }
      if (!hosts.includes(host)) hosts.push(host);
    }
    destinations.set(name, hosts);
  }
  if (destinations.size > 0) meta.secret_destinations = Object.fromEntries(destinations);
  if (placements.size > 0) meta.secret_placements = Object.fromEntries(placements);
  return { meta, problems };
}

export function parseMetadata(source: string): ScriptMetadata {
  return parse(source).meta;
}

/** The first malformed `# @secrets:` binding, or null (create and update refuse such a text). */
export function findMetadataError(source: string): MetadataProblem | null {
  return parse(source).problems[0] ?? null;
}
