/**
 * Matched ranges, kept merged: a range that overlaps or touches the last one joins it, so that
 * several matches (a value and its encodings, or two secrets side by side) become one marker.
 * Ranges must arrive in order of their end, which is how the automaton reports them.
 */
export class SpanList {
  readonly starts: number[] = [];
  readonly ends: number[] = [];
  readonly tags: number[] = [];

  get length(): number {
    return this.starts.length;
  }

  add(start: number, end: number, tag: number): void {
    const { starts, ends, tags } = this;
    let n = starts.length;
    while (n > 0 && (ends[n - 1] as number) >= start) {
      n--;
      const previous = starts[n] as number;
      // The marker names the leftmost match of the run.
      if (previous < start) {
        start = previous;
        tag = tags[n] as number;
      }
      starts.pop();
      ends.pop();
      tags.pop();
    }
    starts.push(start);
    ends.push(end);
    tags.push(tag);
  }

  /** Drops the first `count` spans. */
  shift(count: number): void {
    this.starts.splice(0, count);
    this.ends.splice(0, count);
    this.tags.splice(0, count);
  }
}

/**
 * `text` (which starts at absolute position `base`) with the first `count` spans replaced by
 * their markers. Spans must lie inside the text.
 */
export function render(
  text: string,
  base: number,
  spans: SpanList,
  count: number,
  marker: (tag: number) => string,
): string {
  let result = '';
  let at = 0;
  for (let i = 0; i < count; i++) {
    const start = (spans.starts[i] as number) - base;
    result += text.slice(at, start) + marker(spans.tags[i] as number);
    at = (spans.ends[i] as number) - base;
  }
  return result + text.slice(at);
}
