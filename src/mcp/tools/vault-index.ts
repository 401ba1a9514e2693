import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import MiniSearch from 'minisearch';

export interface VaultHit {
  path: string;
  title: string;
  snippet: string;
  score: number;
}

export interface VaultIndex {
  search(query: string, limit: number): Promise<VaultHit[]>;
}

interface Entry {
  mtimeMs: number;
  size: number;
  title: string;
  text: string;
}

interface Doc {
  id: string;
  title: string;
  text: string;
}

const maxFiles = 20_000;
const maxFileBytes = 1024 * 1024;

/**
 * A full-text index over the vault's markdown files. Before each search it compares every
 * file's mtime and size with what it indexed and re-reads only what changed, so results follow
 * edits made by any means (this tool, a sync client, a text editor) without a watcher.
 */
export function createVaultIndex(root: string): VaultIndex {
  const entries = new Map<string, Entry>();
  const index = new MiniSearch<Doc>({
    fields: ['title', 'text'],
    storeFields: ['title'],
    searchOptions: { boost: { title: 2 }, prefix: true, fuzzy: 0.2 },
  });
  let refreshing: Promise<void> | undefined;

  async function refresh(): Promise<void> {
    const seen = new Set<string>();
    for (const rel of await markdownFiles(root)) {
      seen.add(rel);
      const info = await stat(path.join(root, rel)).catch(() => undefined);
      if (!info || info.size > maxFileBytes) continue;
      const known = entries.get(rel);
      if (known && known.mtimeMs === info.mtimeMs && known.size === info.size) continue;
      const text = await readFile(path.join(root, rel), 'utf8').catch(() => undefined);
      if (text === undefined) continue;
      const entry = { mtimeMs: info.mtimeMs, size: info.size, title: titleOf(text, rel), text };
      if (known) index.discard(rel);
      index.add({ id: rel, title: entry.title, text });
      entries.set(rel, entry);
    }
    for (const rel of [...entries.keys()]) {
      if (seen.has(rel)) continue;
      index.discard(rel);
      entries.delete(rel);
    }
  }

  return {
    async search(query, limit) {
      refreshing ??= refresh().finally(() => (refreshing = undefined));
      await refreshing;
      return index
        .search(query)
        .slice(0, limit)
        .map((result) => {
          const rel = String(result.id);
          const entry = entries.get(rel);
          return {
            path: rel,
            title: entry?.title ?? rel,
            snippet: entry ? snippetOf(entry.text, result.terms) : '',
            score: result.score,
          };
        });
    },
  };
}

export function titleOf(text: string, rel: string): string {
  const heading = /^# +(.+?)\s*#*\s*$/m.exec(text);
  return heading?.[1]?.trim() || path.basename(rel).replace(/\.md$/i, '');
}

function snippetOf(text: string, terms: string[], width = 160): string {
  const lower = text.toLowerCase();
  const at = terms.map((term) => lower.indexOf(term.toLowerCase())).filter((i) => i >= 0);
  const hit = at.length ? Math.min(...at) : 0;
  const start = Math.max(0, hit - width / 4);
  const piece = text
    .slice(start, start + width)
    .replace(/\s+/g, ' ')
    .trim();
  return `${start > 0 ? '…' : ''}${piece}${start + width < text.length ? '…' : ''}`;
}

async function markdownFiles(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const list = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of list) {
      if (out.length >= maxFiles) return;
      // Dot folders (.git, .obsidian, .trash) hold no notes; symlinks are not followed.
      if (entry.name.startsWith('.')) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile() && entry.name.toLowerCase().endsWith('.md')) {
        out.push(path.relative(root, full).split(path.sep).join('/'));
      }
    }
  };
  await walk(root);
  return out;
}
