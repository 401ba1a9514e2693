import type { ScriptMetadata } from './script-schema.js';

/**
 * A destination a secret may be sent to: a host name, a `*.` suffix pattern or an IP address
 * (IPv6 in brackets), optionally with `:port`. Kept lower-case, as URL hosts are.
 */
const destinationPattern =
  /^(?:(?:\*\.)?[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;
const secretNamePattern = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

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
 * Reads the leading comment block only: a `# @secrets:` line further down is code commentary,
 * not a declaration, and must not widen what the approval covers. `# @secrets: NAME -> host, …`
 * binds one secret to the hosts it may be sent to; lines accumulate.
 */
function parse(source: string): Parsed {
  const meta: ScriptMetadata = { description: '', author: '', version: '', secrets: [] };
  const problems: MetadataProblem[] = [];
  const destinations = new Map<string, string[]>();
  const declare = (name: string) => {
    if (!meta.secrets.includes(name)) meta.secrets.push(name);
  };
  const lines = source.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] as string;
    const line = raw.trim();
    if (line === '') continue;
    if (!line.startsWith('#')) break;
    const match = /^#\s*@(description|author|version|secrets)\s*:\s*(.*)$/i.exec(line);
    if (!match) continue;
    const key = (match[1] as string).toLowerCase() as
      'description' | 'author' | 'version' | 'secrets';
    const value = (match[2] as string).trim();
    const column = raw.indexOf(match[2] as string) + 1;
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
    if (!secretNamePattern.test(name)) {
      problems.push({
        message: `@secrets: "${name}" before "->" must be one secret name`,
        line: i + 1,
        column,
      });
      continue;
    }
    declare(name);
    const hosts = destinations.get(name) ?? [];
    const listed = value.slice(arrow + 2);
    let offset = column + arrow + 2;
    for (const part of listed.split(',')) {
      const host = part.trim().toLowerCase();
      const at = offset + part.indexOf(part.trim());
      offset += part.length + 1;
      if (!destinationPattern.test(host)) {
        problems.push({
          message: `@secrets: "${part.trim()}" is not a destination (a host name, *.suffix or IP, optionally :port)`,
          line: i + 1,
          column: at,
        });
        continue;
      }
      if (!hosts.includes(host)) hosts.push(host);
    }
    destinations.set(name, hosts);
  }
  if (destinations.size > 0) meta.secret_destinations = Object.fromEntries(destinations);
  return { meta, problems };
}

export function parseMetadata(source: string): ScriptMetadata {
  return parse(source).meta;
}

/** The first malformed `# @secrets:` binding, or null (create and update refuse such a text). */
export function findMetadataError(source: string): MetadataProblem | null {
  return parse(source).problems[0] ?? null;
}
