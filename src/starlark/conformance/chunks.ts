/** Splitting test files into chunks and extracting their expectations (see the corpus README). */
import type { DialectOptions } from '../index.js';

export interface Expectation {
  line: number;
  pattern: string;
  impl: 'all' | 'go' | 'java' | 'rust';
}

export interface Chunk {
  /** First line of the chunk in the original file (1-based). */
  startLine: number;
  source: string;
  options: DialectOptions;
  expects: Expectation[];
  /** True when the chunk holds no code and no expectation. */
  trivial: boolean;
}

const OPTION_NAMES = [
  'set',
  'while',
  'toplevelcontrol',
  'globalreassign',
  'loadbindsglobally',
  'recursion',
] as const;

function chunkOptions(text: string): DialectOptions {
  const o: DialectOptions = {};
  for (const n of OPTION_NAMES) if (text.includes(`option:${n}`)) o[n] = true;
  return o;
}

function isTrivial(lines: string[]): boolean {
  return lines.every((l) => l.trim() === '' || l.trim().startsWith('#'));
}

/** A Go string literal after `###`: "..." or `...`. Anything else is not an expectation. */
function goLiteral(s: string): string | null {
  if (s.startsWith('`') && s.endsWith('`') && s.length >= 2) return s.slice(1, -1);
  if (s.startsWith('"') && s.endsWith('"') && s.length >= 2) {
    try {
      return JSON.parse(s) as string;
    } catch {
      return null;
    }
  }
  return null;
}

/** starlark-go format: split on "\n---\n", pad with newlines so line numbers match. */
export function splitGo(text: string): Chunk[] {
  const out: Chunk[] = [];
  let start = 1;
  for (const piece of text.split('\n---\n')) {
    const lines = piece.split('\n');
    const expects: Expectation[] = [];
    lines.forEach((l, i) => {
      const k = l.indexOf('###');
      if (k < 0) return;
      const pattern = goLiteral(l.slice(k + 3).trim());
      if (pattern !== null) expects.push({ line: start + i, pattern, impl: 'all' });
    });
    out.push({
      startLine: start,
      source: '\n'.repeat(start - 1) + piece,
      options: chunkOptions(piece),
      expects,
      trivial: expects.length === 0 && isTrivial(lines),
    });
    start += lines.length + 1;
  }
  return out;
}

export const BAZEL_PRELUDE = `
def assert_eq(x, y):
    if x != y:
        error("%r != %r" % (x, y))

def assert_ne(x, y):
    if x == y:
        error("%r == %r" % (x, y))

def assert_(cond, msg = "assertion failed"):
    if not cond:
        error(msg)
`;

const BAZEL_EXPECT = /^(.*?) *### *((go|java|rust):)? *(.*)$/;

/** bazelbuild/starlark format: line-based `---`, raw regex expectations, a prelude. */
export function splitBazel(text: string): Chunk[] {
  const out: Chunk[] = [];
  const preludeLines = BAZEL_PRELUDE.split('\n').length - 1;
  let cur: string[] = [];
  let expects: Expectation[] = [];
  let start = 1;
  const flush = (): void => {
    out.push({
      startLine: start,
      source: BAZEL_PRELUDE + cur.join('\n') + '\n',
      options: {},
      expects,
      trivial: expects.length === 0 && isTrivial(cur),
    });
  };
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/\s+$/, '');
    if (line === '---') {
      flush();
      cur = [];
      expects = [];
      start = i + 2;
      return;
    }
    const m = BAZEL_EXPECT.exec(line);
    if (m !== null) {
      cur.push(m[1] ?? '');
      const impl = (m[3] ?? 'all') as Expectation['impl'];
      expects.push({ line: preludeLines + cur.length, pattern: m[4] ?? '', impl });
    } else {
      cur.push(line);
    }
  });
  if (cur.length > 0 || out.length === 0) flush();
  return out;
}
