import { tableKey } from './hash.js';
import { StarlarkError, StarlarkObject, type Value, type ValueIterator } from './value.js';

/** Marks a deleted slot in the insertion-ordered arrays. */
export const HOLE: Value = Object.freeze(Object.create(null)) as Value;

/** Slots (live or deleted) a table may have before its string keys get a Map. */
export const smallTable = 8;

/**
 * Insertion-ordered hash table shared by dict and set. Keys and values live in parallel
 * arrays (so iteration is a plain array walk); a JS Map indexes primitive keys by value and
 * a second Map indexes composite keys (tuples and the like) by their canonical string.
 * Small non-negative int keys that arrive in order (0, 1, 2, ...) are indexed by a plain
 * array instead: Map hashing scatters consecutive ints across memory, which made building
 * `{i: ... for i in range(n)}` cache-bound. While each such key sits in the slot of its own
 * number, not even that array is kept (`ident`).
 *
 * A table of a few string keys (a record: `{"name": ..., "age": ...}`) has no Map at all: its
 * string keys are found by scanning `keys`. A Map and its backing store are about a third of a
 * small dict's bytes.
 */
export abstract class HashTable extends StarlarkObject {
  declare keys: Value[];
  declare vals: Value[];
  declare itercount: number;
  /**
   * Slots of string keys and of the other primitive keys not in `dense`; null while the table
   * is small and every key found through it would be a string (they are found by scanning).
   */
  declare private index: Map<unknown, number> | null;
  declare private cindex: Map<string, number> | null;
  /**
   * `dense[i]` is the slot of int key i, or -1 if absent. It only grows by appending the key
   * equal to its length, and only when that key is not in `index`; so an int key below
   * `dense.length` is never in `index`.
   */
  declare private dense: number[] | null;
  /**
   * While `dense` is null: int keys 0 .. ident-1 are the first `ident` slots, key i in slot i
   * (`{i: ... for i in range(n)}`), so they need no index at all. A large index array is one
   * more large object that V8 maps fresh, page by page, every time it grows. The first key that
   * breaks the pattern, or a removal, turns it into `dense`.
   */
  declare private ident: number;
  declare private holes: number;

  /**
   * `keys` and `vals`, when given, become the table's slots as they are, with no lookups: they
   * must be distinct strings, at most `smallTable` of them (see `Dict.literal`).
   */
  constructor(keys: Value[] = [], vals: Value[] = []) {
    super();
    this.keys = keys;
    this.vals = vals;
    this.itercount = 0;
    this.index = null;
    this.cindex = null;
    this.dense = null;
    this.ident = 0;
    this.holes = 0;
  }

  get size(): number {
    return this.keys.length - this.holes;
  }

  checkMutable(verb: string): void {
    if (this.frozen) throw new StarlarkError(`cannot ${verb} frozen hash table`);
    if (this.itercount > 0) throw new StarlarkError(`cannot ${verb} hash table during iteration`);
  }

  /** Slot of key `k`, or -1. Throws for unhashable keys. */
  find(k: Value): number {
    if (typeof k === 'string') {
      if (this.index === null) return this.scan(k);
      const s = this.index.get(k);
      return s === undefined ? -1 : s;
    }
    const hk = tableKey(k);
    const dense = this.dense;
    if (typeof hk === 'number' && hk >= 0 && (hk | 0) === hk) {
      if (dense !== null) {
        if (hk < dense.length) return dense[hk]!;
      } else if (hk < this.ident) return hk;
    }
    let s: number | undefined;
    if (typeof hk === 'string') s = this.cindex === null ? undefined : this.cindex.get(hk);
    else s = this.index === null ? undefined : this.index.get(hk);
    return s === undefined ? -1 : s;
  }

  /** The slot of string key `k` in a table without `index`. */
  private scan(k: string): number {
    const keys = this.keys;
    for (let i = 0; i < keys.length; i++) if (keys[i] === k) return i;
    return -1;
  }

  /** Gives the table its `index`, holding every string key (it grew, or holds other kinds). */
  private indexed(): Map<unknown, number> {
    if (this.index !== null) return this.index;
    const index = new Map<unknown, number>();
    const keys = this.keys;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      if (typeof k === 'string') index.set(k, i);
    }
    return (this.index = index);
  }

  private append(k: Value, v: Value): void {
    this.keys.push(k);
    this.vals.push(v);
  }

  /** Inserts or replaces; the caller has already checked mutability. */
  put(k: Value, v: Value): void {
    if (typeof k === 'string' && this.index === null) {
      const s = this.scan(k);
      if (s >= 0) {
        this.vals[s] = v;
        return;
      }
      if (this.keys.length >= smallTable) this.indexed().set(k, this.keys.length);
      this.append(k, v);
      return;
    }
    const hk = typeof k === 'string' ? k : tableKey(k);
    if (typeof hk === 'number' && hk >= 0 && (hk | 0) === hk) {
      if (this.dense === null) {
        if (hk < this.ident) {
          this.vals[hk] = v;
          return;
        }
        if (hk === this.ident && this.keys.length === hk && !this.index?.has(hk)) {
          this.ident++;
          this.append(k, v);
          return;
        }
      }
      const dense = this.denseIndex();
      if (hk < dense.length) {
        const d = dense[hk]!;
        if (d >= 0) this.vals[d] = v;
        else {
          dense[hk] = this.keys.length;
          this.append(k, v);
        }
        return;
      }
      if (hk === dense.length && (this.index === null || !this.index.has(hk))) {
        dense.push(this.keys.length);
        this.append(k, v);
        return;
      }
    }
    const composite = typeof hk === 'string' && typeof k !== 'string';
    const map: Map<unknown, number> = composite ? (this.cindex ??= new Map()) : this.indexed();
    const s = map.get(hk);
    if (s !== undefined) {
      this.vals[s] = v;
      return;
    }
    map.set(hk, this.keys.length);
    this.append(k, v);
  }

  /** `dense`, made from the identity prefix (`ident`) if there is none yet. */
  private denseIndex(): number[] {
    if (this.dense !== null) return this.dense;
    const dense = new Array<number>(this.ident);
    for (let i = 0; i < dense.length; i++) dense[i] = i;
    this.ident = 0;
    return (this.dense = dense);
  }

  /** Removes `k`; returns its slot's old value or undefined. The caller checked mutability. */
  remove(k: Value): Value | undefined {
    const hk = typeof k === 'string' ? k : tableKey(k);
    let s: number | undefined;
    // A hole among the first slots would break the identity prefix.
    const dense = this.ident > 0 ? this.denseIndex() : this.dense;
    if (
      typeof hk === 'number' &&
      dense !== null &&
      hk >= 0 &&
      hk < dense.length &&
      (hk | 0) === hk
    ) {
      s = dense[hk]!;
      if (s < 0) return undefined;
      dense[hk] = -1;
    } else if (typeof k === 'string' && this.index === null) {
      s = this.scan(k);
      if (s < 0) return undefined;
    } else {
      const composite = typeof hk === 'string' && typeof k !== 'string';
      const map = composite ? this.cindex : this.index;
      if (map === null) return undefined;
      s = map.get(hk);
      if (s === undefined) return undefined;
      map.delete(hk);
    }
    const old = this.vals[s]!;
    this.keys[s] = HOLE;
    this.vals[s] = HOLE;
    this.holes++;
    if (s === this.keys.length - 1) this.trimTail();
    else if (this.holes > 16 && this.holes * 2 > this.keys.length) this.compact();
    return old;
  }

  private trimTail(): void {
    while (this.keys.length > 0 && this.keys[this.keys.length - 1] === HOLE) {
      this.keys.pop();
      this.vals.pop();
      this.holes--;
    }
  }

  private compact(): void {
    const keys = this.keys;
    const vals = this.vals;
    this.keys = [];
    this.vals = [];
    this.index = null;
    this.cindex = null;
    this.dense = null;
    this.ident = 0;
    this.holes = 0;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      if (k !== HOLE) this.put(k, vals[i]!);
    }
  }

  clearAll(): void {
    this.keys = [];
    this.vals = [];
    this.index = null;
    this.cindex = null;
    this.dense = null;
    this.ident = 0;
    this.holes = 0;
  }

  /** Live keys in insertion order (a fresh array). */
  keyList(): Value[] {
    if (this.holes === 0) return this.keys.slice();
    return this.keys.filter((k) => k !== HOLE);
  }

  /** Index of the first live slot, or -1 (for popitem / set.pop). */
  firstSlot(): number {
    for (let i = 0; i < this.keys.length; i++) if (this.keys[i] !== HOLE) return i;
    return -1;
  }

  override truth(): boolean {
    return this.size > 0;
  }

  override length(): number {
    return this.size;
  }

  /** Membership of an unhashable value is simply false (as in starlark-go), not an error. */
  override contains(key: Value): boolean {
    try {
      return this.find(key) >= 0;
    } catch (e) {
      if (e instanceof StarlarkError && e.message.startsWith('unhashable')) return false;
      throw e;
    }
  }

  override iterate(): ValueIterator {
    return new TableIterator(this);
  }
}

/** Iterates the live keys of a table, holding its iteration count while open. */
export class TableIterator implements ValueIterator {
  private i = 0;
  private open = true;

  constructor(private readonly table: HashTable) {
    if (!table.frozen) table.itercount++;
    else this.open = false;
  }

  next(): Value | undefined {
    const keys = this.table.keys;
    while (this.i < keys.length) {
      const k = keys[this.i++]!;
      if (k !== HOLE) return k;
    }
    return undefined;
  }

  done(): void {
    if (this.open) {
      this.open = false;
      this.table.itercount--;
    }
  }
}
