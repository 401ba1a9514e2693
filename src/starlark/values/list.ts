import { compareSequences, equalSequences, equalsDepth } from './equality.js';
import { ArrayIterator } from './iteration.js';
import { freezeValue } from './freeze.js';
import { reprItems } from './repr.js';
import { StarlarkError, StarlarkObject, type Value, type ValueIterator } from './value.js';

/** Mutable Starlark list. `items` is exposed for fast paths; mutate only after `checkMutable`. */
export class List extends StarlarkObject {
  declare itercount: number;

  constructor(public items: Value[] = []) {
    super();
    this.itercount = 0;
  }

  override get typeName(): string {
    return 'list';
  }

  /** Throws the starlark-go error for mutating a frozen list or one being iterated. */
  checkMutable(verb: string): void {
    if (this.frozen) throw new StarlarkError(`cannot ${verb} frozen list`);
    if (this.itercount > 0) throw new StarlarkError(`cannot ${verb} list during iteration`);
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
    throw new StarlarkError('unhashable type: list');
  }

  override equals(other: Value, depth: number): boolean {
    return other instanceof List && equalSequences(this.items, other.items, depth);
  }

  override compareSameType(other: Value, depth: number): number | undefined {
    return other instanceof List ? compareSequences(this.items, other.items, depth) : undefined;
  }

  override repr(): string {
    return reprItems(this.items, '[', ']');
  }

  override length(): number {
    return this.items.length;
  }

  override iterate(): ValueIterator {
    return new ArrayIterator(this.items, this.frozen ? null : this);
  }

  override contains(key: Value): boolean {
    const items = this.items;
    for (let i = 0; i < items.length; i++) if (equalsDepth(items[i]!, key, 100)) return true;
    return false;
  }

  append(v: Value): void {
    this.checkMutable('append to');
    this.items.push(v);
  }
}
