import { freezeValue } from './freeze.js';
import { HOLE, HashTable } from './hash-table.js';
import { repr } from './repr.js';
import { None, StarlarkError, type Value } from './value.js';

/** Starlark set (type name `set`), insertion-ordered like dict. */
export class StarSet extends HashTable {
  override get typeName(): string {
    return 'set';
  }

  has(k: Value): boolean {
    return this.find(k) >= 0;
  }

  add(k: Value): void {
    this.checkMutable('insert into');
    this.put(k, None);
  }

  /** Removes `k`; reports whether it was present. */
  discard(k: Value): boolean {
    this.checkMutable('delete from');
    return this.remove(k) !== undefined;
  }

  clear(): void {
    // Clearing an empty set is not a mutation, even when frozen (unlike dict, per starlark-go's tests).
    if (this.size === 0) return;
    this.checkMutable('clear');
    this.clearAll();
  }

  override freeze(): void {
    if (this.frozen) return;
    this.frozen = true;
    for (const k of this.keys) if (k !== HOLE) freezeValue(k);
  }

  override hash(): number {
    throw new StarlarkError('unhashable type: set');
  }

  override equals(other: Value, _depth: number): boolean {
    if (!(other instanceof StarSet) || other.size !== this.size) return false;
    for (const k of this.keys) if (k !== HOLE && !other.has(k)) return false;
    return true;
  }

  /** Set comparison is inclusion: `<=` subset, `<` proper subset. */
  override compareOp(op: '<' | '<=' | '>' | '>=', other: Value): boolean | undefined {
    if (!(other instanceof StarSet)) return undefined;
    switch (op) {
      case '<=':
        return this.isSubsetOf(other);
      case '<':
        return this.size < other.size && this.isSubsetOf(other);
      case '>=':
        return other.isSubsetOf(this);
      default:
        return other.size < this.size && other.isSubsetOf(this);
    }
  }

  isSubsetOf(other: StarSet): boolean {
    for (const k of this.keys) if (k !== HOLE && !other.has(k)) return false;
    return true;
  }

  override repr(): string {
    if (this.size === 0) return 'set()';
    let out = 'set([';
    let first = true;
    for (const k of this.keys) {
      if (k === HOLE) continue;
      if (!first) out += ', ';
      first = false;
      out += repr(k);
    }
    return out + '])';
  }

  static of(items: Iterable<Value>): StarSet {
    const s = new StarSet();
    for (const k of items) s.put(k, None);
    return s;
  }
}
