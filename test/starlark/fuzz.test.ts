import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  StarlarkExecError,
  StarlarkStaticErrors,
  StarlarkSyntaxError,
  execModule,
  parse,
} from '../../src/starlark/index.js';

const DIR = path.resolve(process.cwd(), '../shared/starlark-conformance');

/** Seeded PRNG (mulberry32) so every run sees the same inputs. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TOKENS = [
  'def',
  'f',
  '(',
  ')',
  ':',
  '\n',
  '    ',
  'return',
  'x',
  '=',
  '1',
  '+',
  '*',
  '[',
  ']',
  '{',
  '}',
  ',',
  'for',
  'in',
  'if',
  'else',
  'lambda',
  '"s"',
  "'''",
  'range(9)',
  '**',
  '*',
  'not',
  'and',
  'or',
  '.',
  'append',
  '%',
  '//',
  '-',
  '0x',
  '1e9',
  '\\',
  '\t',
  'while',
  'load',
  '"m"',
  ';',
  'pass',
  '[0] * 99999',
  '"ab" * 999',
  'f(f)',
  '#',
];

function expectContained(fn: () => void): void {
  try {
    fn();
  } catch (e) {
    const ok =
      e instanceof StarlarkSyntaxError ||
      e instanceof StarlarkStaticErrors ||
      e instanceof StarlarkExecError;
    if (!ok) throw e;
    expect(ok).toBe(true);
  }
}

function runBoth(src: string): void {
  expectContained(() => parse('fuzz.star', src));
  expectContained(() =>
    execModule({
      file: 'fuzz.star',
      source: src,
      options: { recursion: true, while: true, toplevelcontrol: true, globalreassign: true },
      limits: {
        maxSteps: 20_000,
        timeoutMs: 200,
        maxAlloc: 100_000,
        maxOutput: 10_000,
        maxDepth: 50,
      },
      print: () => {},
    }),
  );
}

function corpusFiles(): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.star')) out.push(p);
    }
  };
  if (fs.existsSync(DIR)) walk(DIR);
  return out.sort();
}

describe('fuzz', () => {
  it('random token streams never crash the host', () => {
    const rnd = prng(1);
    const deadline = Date.now() + 6000;
    for (let i = 0; i < 3000 && Date.now() < deadline; i++) {
      const n = 1 + Math.floor(rnd() * 40);
      let src = '';
      for (let k = 0; k < n; k++)
        src += TOKENS[Math.floor(rnd() * TOKENS.length)] + (rnd() < 0.5 ? ' ' : '');
      runBoth(src);
    }
  }, 30_000);

  it('mutated corpus programs never crash the host and always end', () => {
    const files = corpusFiles();
    const rnd = prng(2);
    const deadline = Date.now() + 10_000;
    for (let i = 0; i < 1500 && Date.now() < deadline && files.length > 0; i++) {
      const text = fs.readFileSync(files[Math.floor(rnd() * files.length)] as string, 'utf8');
      const chunks = text.split('\n---\n');
      let src = chunks[Math.floor(rnd() * chunks.length)] as string;
      const edits = 1 + Math.floor(rnd() * 4);
      for (let k = 0; k < edits; k++) {
        const at = Math.floor(rnd() * src.length);
        const len = Math.floor(rnd() * 8);
        const ins = rnd() < 0.5 ? (TOKENS[Math.floor(rnd() * TOKENS.length)] as string) : '';
        src = src.slice(0, at) + ins + src.slice(at + len);
      }
      runBoth(src);
    }
  }, 40_000);
});
