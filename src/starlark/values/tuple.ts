import { compareSequences, equalSequences, equalsDepth } from './equality.js';
import { freezeValue } from './freeze.js';
import { compositeKeyPart, hashValue } from './hash.js';
import { ArrayIterator } from './iteration.js';
import { repr, reprItems } from './repr.js';
import { StarlarkObject, type Value, type ValueIterator } from './value.js';

/** Immutable Starlark tuple. Never mutate `items` after construction. */
export class Tuple extends StarlarkObject {
  constructor(readonly items: readonly Value[]) {
    super();
  }

  static readonly empty = new Tuple([]);

  override get typeName(): string {
    return 'tuple';
  }

  override freeze(): void {
    if (this.frozen) return;
    this.frozen = true;
    for (const v of this.items) freezeValue(v);
  }

  override truth(): boolean {
    return this.items.length > 0;
  }

  override hash(): number {
    // Order-sensitive combination, in the spirit of Python's tuple hash.
    let h = 0x345678;
    for (const v of this.items) h = (Math.imul(h ^ hashValue(v), 1000003) + 0x9e3779b9) | 0;
    return h >>> 0;
  }

  override hashKey(): unknown {
    let key = '(';
    for (const v of this.items) key += compositeKeyPart(v) + ',';
    return key;
  }

  override equals(other: Value, depth: number): boolean {
    return other instanceof Tuple && equalSequences(this.items, other.items, depth);
  }

  override compareSameType(other: Value, depth: number): number | undefined {
    return other instanceof Tuple ? compareSequences(this.items, other.items, depth) : undefined;
  }

  override repr(): string {
    if (this.items.length === 1) return '(' + repr(this.items[0]!) + ',)';
    return reprItems(this.items, '(', ')');
  }

  override length(): number {
    return this.items.length;
  }

  override iterate(): ValueIterator {
    return new ArrayIterator(this.items, null);
  }

  override contains(key: Value): boolean {
    for (const v of this.items) if (equalsDepth(v, key, 100)) return true;
    return false;
  }
}
