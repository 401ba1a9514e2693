import { scriptGlobals } from '../queue/script-globals.js';
import { parse } from '../starlark/index.js';
import { hiddenCharacters } from './hidden-characters.js';
import { parseMetadata } from './metadata.js';
import type { ScriptCapabilities } from './script-schema.js';

/**
 * What a script can reach, for the person who approves it (DESIGN "script capabilities at
 * review"): read from its text by Steward, never told by the AI that wrote it. Secrets with their
 * destinations and place come from the header the approval covers; hosts from the literal URLs in
 * the code; host modules and top-level functions from the syntax tree; and characters a reviewer
 * cannot see (zero-width, bidirectional controls: the "Trojan Source" trick) with their position.
 */

const hostModules = new Set<string>(scriptGlobals.filter((name) => name !== 'args'));

/** The host (and written port) of a literal that begins a URL; null for any other text. */
function urlHost(text: string): string | null {
  const match = /^https?:\/\/[^/?#\s]+/i.exec(text);
  if (!match) return null;
  try {
    return new URL(match[0]).host;
  } catch {
    return null;
  }
}

/** Computed from the text alone; a text that does not parse has only its header and characters. */
export function scriptCapabilities(name: string, source: string): ScriptCapabilities {
  const meta = parseMetadata(source);
  const destinations = meta.secret_destinations ?? {};
  const placements = meta.secret_placements ?? {};
  const hosts = new Set<string>();
  const modules = new Set<string>();
  const functions: string[] = [];
  try {
    const file = parse(name, source);
    for (const stmt of file.stmts) if (stmt.kind === 'Def') functions.push(stmt.name.name);
    // Every node is a plain object: walk them all rather than name each kind that holds others.
    const seen = new Set<object>();
    const visit = (node: unknown): void => {
      if (node === null || typeof node !== 'object' || seen.has(node)) return;
      seen.add(node);
      if (Array.isArray(node)) {
        for (const item of node) visit(item);
        return;
      }
      const n = node as { kind?: unknown; name?: unknown; value?: unknown };
      if (n.kind === 'Ident' && typeof n.name === 'string' && hostModules.has(n.name)) {
        modules.add(n.name);
      }
      if (n.kind === 'Literal') {
        const value = n.value as { type: string; v: unknown };
        if (value.type === 'string' && typeof value.v === 'string') {
          const host = urlHost(value.v);
          if (host !== null) hosts.add(host);
        }
        return;
      }
      for (const [key, child] of Object.entries(node)) {
        // The resolver's annotations point back into the tree and at scopes: not syntax.
        if (key !== 'binding' && key !== 'scope') visit(child);
      }
    };
    visit(file.stmts);
  } catch {
    // A syntax error is reported where the text is stored; what the header says still counts.
  }
  return {
    secrets: meta.secrets.map((secret) => ({
      name: secret,
      destinations: destinations[secret] ?? [],
      placement: placements[secret] ?? null,
    })),
    hosts: [...hosts].sort(),
    modules: [...modules].sort(),
    functions,
    hidden_characters: hiddenCharacters(source),
  };
}

/**
 * What `current` can reach that `approved` could not: secrets new or with a destination or place
 * the approval did not cover, hosts, modules and functions it did not have. Hidden characters are
 * always listed whole: any of them deserves a look.
 */
export function newCapabilities(
  current: ScriptCapabilities,
  approved: ScriptCapabilities,
): ScriptCapabilities {
  const before = new Map(approved.secrets.map((s) => [s.name, s]));
  const fresh = (list: string[], old: string[]) => list.filter((x) => !old.includes(x));
  return {
    secrets: current.secrets.flatMap((s) => {
      const old = before.get(s.name);
      if (!old) return [s];
      const added = fresh(s.destinations, old.destinations);
      const moved = s.placement !== old.placement;
      return added.length > 0 || moved ? [{ ...s, destinations: added }] : [];
    }),
    hosts: fresh(current.hosts, approved.hosts),
    modules: fresh(current.modules, approved.modules),
    functions: fresh(current.functions, approved.functions),
    hidden_characters: current.hidden_characters,
  };
}
