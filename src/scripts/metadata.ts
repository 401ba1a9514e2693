import type { ScriptMetadata } from './script-schema.js';

/**
 * Reads the leading comment block only: a `# @secrets:` line further down is code commentary,
 * not a declaration, and must not widen what the approval covers.
 */
export function parseMetadata(source: string): ScriptMetadata {
  const meta: ScriptMetadata = { description: '', author: '', version: '', secrets: [] };
  for (const raw of source.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '') continue;
    if (!line.startsWith('#')) break;
    const match = /^#\s*@(description|author|version|secrets)\s*:\s*(.*)$/i.exec(line);
    if (!match) continue;
    const key = (match[1] as string).toLowerCase() as keyof ScriptMetadata;
    const value = (match[2] as string).trim();
    if (key === 'secrets') {
      for (const name of value.split(/[\s,]+/)) {
        if (name !== '' && !meta.secrets.includes(name)) meta.secrets.push(name);
      }
    } else {
      meta[key] = value;
    }
  }
  return meta;
}
