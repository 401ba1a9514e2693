import { buildAutomaton, type Automaton, type Pattern } from './automaton.js';
import { patternsFor } from './encodings.js';
import { render, SpanList } from './spans.js';

export interface SecretEntry {
  name: string;
  value: string;
}

export interface Redactor {
  /** Names of the secrets it redacts. */
  readonly names: readonly string[];
  /** Number of patterns (values, lines and encodings). */
  readonly patternCount: number;
  readonly maxPatternLength: number;
  /** Replaces every occurrence of a value or its encodings with `[REDACTED:<NAME>]`, in one pass. */
  redact(text: string): string;
  /** True when `text` holds something to redact. */
  matches(text: string): boolean;
  /** Names of the secrets whose value (or an encoding of it) occurs in `text`. */
  namesIn(text: string): string[];
  /** For the stream form; null when there is nothing to redact. */
  readonly automaton: Automaton | null;
  marker(tag: number): string;
}

export function redactionMarker(name: string): string {
  return `[REDACTED:${name}]`;
}

export function createRedactor(secrets: readonly SecretEntry[]): Redactor {
  const usable = secrets.filter((s) => s.value.length > 0);
  const names = usable.map((s) => s.name);
  const markers = names.map(redactionMarker);
  const patterns: Pattern[] = [];
  // Values before derived texts: when one secret's value is only a line or an encoding of another,
  // the marker names the secret whose value it is.
  usable.forEach((secret, tag) => patterns.push({ text: secret.value, tag }));
  usable.forEach((secret, tag) => {
    for (const text of patternsFor(secret.value).slice(1)) patterns.push({ text, tag });
  });
  // Without regard to case: a secret used as a URL host comes back lower-cased in an error, hex
  // or header spellings vary in case, and a script may upper-case a value (`Ä` as well as `A`).
  const automaton = patterns.length > 0 ? buildAutomaton(patterns, { foldCase: true }) : null;
  const marker = (tag: number) => markers[tag] ?? '[REDACTED]';

  function redact(text: string): string {
    if (automaton === null || text.length === 0) return text;
    let spans: SpanList | null = null;
    automaton.scan(text, 0, 0, (start, end, tag) => {
      (spans ??= new SpanList()).add(start, end, tag);
    });
    // Fast path: nothing found, the same string back without copying.
    if (spans === null) return text;
    const found: SpanList = spans;
    return render(text, 0, found, found.length, marker);
  }

  function matches(text: string): boolean {
    if (automaton === null) return false;
    let hit = false;
    automaton.scan(text, 0, 0, () => {
      hit = true;
    });
    return hit;
  }

  function namesIn(text: string): string[] {
    if (automaton === null) return [];
    const tags = new Set<number>();
    automaton.scan(text, 0, 0, (_start, _end, tag) => {
      tags.add(tag);
    });
    return [...tags].map((tag) => names[tag] ?? '');
  }

  return {
    names,
    namesIn,
    patternCount: patterns.length,
    maxPatternLength: automaton?.maxPatternLength ?? 0,
    redact,
    matches,
    automaton,
    marker,
  };
}

export const emptyRedactor: Redactor = createRedactor([]);
