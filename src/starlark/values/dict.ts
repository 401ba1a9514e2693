import { equalsDepth } from './equality.js';
import { freezeValue } from './freeze.js';
import { HOLE, HashTable } from './hash-table.js';
import { repr } from './repr.js';
import { StarlarkError, type Value } from './value.js';

/** Starlark dict: insertion-ordered, keys compared by Starlark equality (1 and 1.0 are one key). */
export class Dict extends HashTable {
  /**
   * A dict literal's dict, when its keys are distinct string constants, at most `smallTable`
   * of them (the compilers check): the arrays are its slots, with no lookup per entry, and sized
   * to the entries rather than to a first push's sixteen.
   */
  static literal(keys: string[], vals: Value[]): Dict {
    return new Dict(keys, vals);
  }

  override get typeName(): string {
    return 'dict';
  }

  /** `d[k]`, or undefined when missing. */
  get(k: Value): Value | undefined {
    const s = this.find(k);
    return s < 0 ? undefined : this.vals[s];
  }

  /** `d[k] = v` with starlark-go's mutation checks. */
  set(k: Value, v: Value): void {
    this.checkMutable('insert into');
    this.put(k, v);
  }

  /** Deletes `k`; returns the old value or undefined. */
  delete(k: Value): Value | undefined {
    this.checkMutable('delete from');
    return this.remove(k);
  }

  clear(): void {
    this.checkMutable('clear');
    this.clearAll();
  }

  /** Live [key, value] pairs in insertion order. */
  entries(): Array<[Value, Value]> {
    const out: Array<[Value, Value]> = [];
    const { keys, vals } = this;
    for (let i = 0; i < keys.length; i++) if (keys[i] !== HOLE) out.push([keys[i]!, vals[i]!]);
    return out;
  }

  valueList(): Value[] {
    const out: Value[] = [];
    const { keys, vals } = this;
    for (let i = 0; i < keys.length; i++) if (keys[i] !== HOLE) out.push(vals[i]!);
    return out;
  }

  override freeze(): void {
    if (this.frozen) return;
    this.frozen = true;
    const { keys, vals } = this;
    for (let i = 0; i < keys.length; i++) {
      if (keys[i] !== HOLE) {
        freezeValue(keys[i]!);
        freezeValue(vals[i]!);
      }
    }
  }

  override hash(): number {
    throw new StarlarkError('unhashable type: dict');
  }

  override equals(other: Value, depth: number): boolean {
    if (!(other instanceof Dict) || other.size !== this.size) return false;
    const { keys, vals } = this;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      if (k === HOLE) continue;
      const s = other.find(k);
      if (s < 0 || !equalsDepth(vals[i]!, other.vals[s]!, depth)) return false;
    }
    return true;
  }

  override repr(): string {
    let out = '{';
    let first = true;
    const { keys, vals } = this;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      if (k === HOLE) continue;
      if (!first) out += ', ';
      first = false;
      out += repr(k) + ': ' + repr(vals[i]!);
    }
    return out + '}';
  }

  override getIndex(key: Value): Value {
    const v = this.get(key);
    if (v === undefined) throw new StarlarkError(`key ${repr(key)} not in dict`);
    return v;
  }

  /** Builds a dict from JS pairs (no mutability checks: the dict is new). */
  static fromEntries(entries: Iterable<readonly [Value, Value]>): Dict {
    const d = new Dict();
    for (const [k, v] of entries) d.put(k, v);
    return d;
  }
}
