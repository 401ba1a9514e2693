import type { Redactor } from './redactor.js';
import { render, SpanList } from './spans.js';

export interface StreamRedactor {
  /** Redacted text that can be released now; holds back only a tail that may begin a secret. */
  push(chunk: string): string;
  /** The rest, redacted. The stream redactor can be reused afterwards. */
  end(): string;
}

/**
 * Redacts a stream of chunks so that a secret split across chunks is still caught. The automaton
 * state carries over between chunks, so each character is scanned once; the text held back is
 * exactly the tail the state says may still grow into a match.
 */
export function createStreamRedactor(redactor: Redactor): StreamRedactor {
  const automaton = redactor.automaton;
  let state = 0;
  let pending = '';
  let base = 0;
  let spans = new SpanList();

  function push(chunk: string): string {
    if (automaton === null) return chunk;
    state = automaton.scan(chunk, state, base + pending.length, (start, end, tag) =>
      spans.add(start, end, tag),
    );
    pending += chunk;
    const end = base + pending.length;
    // A later match can start no earlier than this.
    let cut = end - automaton.depth(state);
    // Keep a found span whole, and one a later match could touch, so that they merge as in redact().
    for (let i = spans.length - 1; i >= 0 && (spans.ends[i] as number) >= cut; i--) {
      if ((spans.starts[i] as number) < cut) {
        cut = spans.starts[i] as number;
        break;
      }
    }
    let done = 0;
    while (done < spans.length && (spans.ends[done] as number) <= cut) done++;
    const released = render(pending.slice(0, cut - base), base, spans, done, redactor.marker);
    spans.shift(done);
    pending = pending.slice(cut - base);
    base = cut;
    return released;
  }

  function end(): string {
    const rest = render(pending, base, spans, spans.length, redactor.marker);
    state = 0;
    pending = '';
    base = 0;
    spans = new SpanList();
    return rest;
  }

  return { push, end };
}
