import {
  ArrayIterator,
  Bytes,
  quoteString,
  StarlarkError,
  StarlarkObject,
  type Value,
  type ValueIterator,
} from '../values/index.js';

/**
 * The views returned by `s.elems()`, `s.codepoints()`, `b.elems()` and friends. Element
 * views are indexable with a length; code point views are iterable only, as in starlark-go.
 */
export class StringView extends StarlarkObject {
  private cache: Value[] | null = null;

  constructor(
    private readonly type: string,
    private readonly text: string,
    private readonly method: string,
    private readonly indexable: boolean,
    private readonly compute: () => Value[],
  ) {
    super();
    this.frozen = true;
  }

  override get typeName(): string {
    return this.type;
  }

  private items(): Value[] {
    return (this.cache ??= this.compute());
  }

  override hash(): number {
    throw new StarlarkError(`unhashable type: ${this.type}`);
  }

  override repr(): string {
    return `${this.text}.${this.method}()`;
  }

  override length(): number | undefined {
    return this.indexable ? this.items().length : undefined;
  }

  override getIndex(key: Value): Value | undefined {
    if (!this.indexable || typeof key !== 'number') return undefined;
    const items = this.items();
    const i = key < 0 ? key + items.length : key;
    return items[i];
  }

  override iterate(): ValueIterator {
    return new ArrayIterator(this.items(), null);
  }
}

export function stringView(
  s: string,
  method: 'elems' | 'elem_ords' | 'codepoints' | 'codepoint_ords',
): StringView {
  const text = quoteString(s);
  switch (method) {
    case 'elems':
      return new StringView('string.elems', text, method, true, () =>
        Array.from({ length: s.length }, (_, i) => s[i]!),
      );
    case 'elem_ords':
      return new StringView('string.elems', text, method, true, () =>
        Array.from({ length: s.length }, (_, i) => s.charCodeAt(i)),
      );
    case 'codepoints':
      return new StringView('string.codepoints', text, method, false, () => [...s]);
    default:
      return new StringView('string.codepoints', text, method, false, () =>
        [...s].map((c) => c.codePointAt(0)!),
      );
  }
}

export function bytesView(b: Bytes): StringView {
  return new StringView('bytes.elems', b.repr(), 'elems', true, () => Array.from(b.data));
}
