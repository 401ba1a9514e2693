/**
 * The Starlark value model shared by the evaluator and the library.
 *
 * Representation (kept small and monomorphic because every operation on the hot path
 * dispatches on it):
 * - `int`: a JS `number` when the value is a safe integer, otherwise a `bigint`. A bigint
 *   inside the safe range is never stored (see `normInt`), and `-0` is never an int, so
 *   `typeof x === 'number'` alone identifies a small int.
 * - `float`: `SFloat`, a box around a JS number, so that `1` and `1.0` stay distinct.
 * - `str`: a JS string. Strings follow the UTF-16 model ("UTF-K" with K=16 in the spec):
 *   `len`, indexing and slicing count UTF-16 code units.
 * - `bool`: a JS boolean. `None`: the `None` singleton.
 * - everything else: a subclass of `StarlarkObject`.
 */

/** Thrown for every Starlark-level error. The message is the bare message; the evaluator adds positions. */
export class StarlarkError extends Error {
  /** Filled in by the evaluator (call stack frames); opaque to the value layer. */
  callStack: unknown = undefined;

  constructor(message: string) {
    super(message);
    this.name = 'StarlarkError';
  }
}

/** The execution context that builtins see. Implemented by the evaluator. */
export interface Thread {
  /** Calls any callable Starlark value (user function or builtin). */
  call(fn: Value, args: Value[], kwargs: Array<[string, Value]> | null): Value;
  /** Charges `n` execution steps; throws a StarlarkError when over the limit. */
  steps(n: number): void;
  /** Checks an allocation of `n` elements or characters before it is made; throws at once when too large. */
  alloc(n: number): void;
  print(msg: string): void;
  readonly depth: number;
  /** Thread-local storage for host builtins. */
  local: Map<string, unknown>;
}

/** Base of every non-primitive value. Protocol methods have safe defaults so hosts override only what they need. */
export abstract class StarlarkObject {
  abstract readonly typeName: string;
  // Fields are assigned in constructors rather than initialised in declarations: class-field
  // initialisers run as a separate step per allocation, which showed up in profiles.
  declare frozen: boolean;

  constructor() {
    this.frozen = false;
  }

  /** Deep freeze. Containers override this to freeze their elements. */
  freeze(): void {
    this.frozen = true;
  }

  truth(): boolean {
    return true;
  }

  /** 32-bit hash; throws for unhashable values. */
  hash(): number {
    throw new StarlarkError(`unhashable type: ${this.typeName}`);
  }

  /**
   * The key used by dict/set tables. A string result is a composite key (kept apart from
   * user string keys); any other result (normally `this`) is compared by identity.
   * Calls `hash()` first so that unhashable values fail here.
   */
  hashKey(): unknown {
    this.hash();
    return this;
  }

  /** Starlark `==`. `depth` guards recursion through cyclic structures. */
  equals(other: Value, _depth: number): boolean {
    return this === other;
  }

  /** Ordering against a value of the same type; `undefined` means "not ordered". */
  compareSameType(_other: Value, _depth: number): number | undefined {
    return undefined;
  }

  /**
   * Ordered comparison `this op other` for types whose `<` is not a total order (set
   * inclusion); `undefined` falls back to `compareSameType`.
   */
  compareOp(_op: '<' | '<=' | '>' | '>=', _other: Value): boolean | undefined {
    return undefined;
  }

  /** `repr(x)`. Containers use the `out` array with cycle tracking done by the caller. */
  repr(): string {
    return `<${this.typeName}>`;
  }

  /** `str(x)`; defaults to `repr`. */
  str(): string {
    return this.repr();
  }

  /** Attribute lookup for host objects; `undefined` means "no such field". Methods of built-in types live in a registry. */
  getAttr(_name: string, _thread: Thread | null): Value | undefined {
    return undefined;
  }

  /** Attribute names for `dir()` and spelling hints. */
  attrNames(): string[] {
    return [];
  }

  /** Attribute assignment; the default refuses it. */
  setAttr(name: string, _value: Value): void {
    throw new StarlarkError(`can't assign to .${name} field of ${this.typeName}`);
  }

  /**
   * Binary operator hook for host types. `side` is 'left' when this object is the left operand.
   * Returns `undefined` when the operation is not supported, so the other side or the default error applies.
   */
  binary(
    _op: string,
    _other: Value,
    _side: 'left' | 'right',
    _thread: Thread | null,
  ): Value | undefined {
    return undefined;
  }

  /** Length, or `undefined` if the value has none. */
  length(): number | undefined {
    return undefined;
  }

  /** Iterator, or `undefined` if the value is not iterable. */
  iterate(): ValueIterator | undefined {
    return undefined;
  }

  /** `x[k]`, or `undefined` if the value is not indexable. */
  getIndex(_key: Value): Value | undefined {
    return undefined;
  }

  /** `k in x`, or `undefined` if membership is not supported. */
  contains(_key: Value): boolean | undefined {
    return undefined;
  }
}

/** Allocation-free iterator: `next()` returns `undefined` at the end; `done()` must be called (also on abrupt exit). */
export interface ValueIterator {
  next(): Value | undefined;
  done(): void;
}

export class SFloat {
  constructor(readonly v: number) {}
}

export class NoneType {
  private constructor() {}
  /** The only instance. */
  static readonly instance = new NoneType();
}

export const None: NoneType = NoneType.instance;

export type Value = number | bigint | boolean | string | SFloat | NoneType | StarlarkObject;

export interface Callable {
  readonly name: string;
  call(thread: Thread, args: Value[], kwargs: Array<[string, Value]> | null): Value;
}

export function isCallable(v: Value): v is StarlarkObject & Callable {
  return (
    v instanceof StarlarkObject && typeof (v as unknown as Partial<Callable>).call === 'function'
  );
}

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Canonical int representation: a number inside the safe range, a bigint outside it. */
export function normInt(b: bigint): number | bigint {
  return b >= MIN_SAFE && b <= MAX_SAFE ? Number(b) : b;
}

/** True for a Starlark int (number or bigint). Note a Starlark int number is always integral. */
export function isInt(v: Value): v is number | bigint {
  const t = typeof v;
  return t === 'number' || t === 'bigint';
}

/** Makes a Starlark int from any integral JS number (normalises -0 and unsafe magnitudes). */
export function intFromNumber(n: number): number | bigint {
  if (Number.isSafeInteger(n)) return n === 0 ? 0 : n;
  return BigInt(n);
}
