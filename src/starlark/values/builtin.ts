import { javaStringHash } from './hash.js';
import { typeName } from './type-name.js';
import { None, StarlarkObject, type Callable, type Thread, type Value } from './value.js';

/** Native implementation of a builtin. `self` is the bound receiver of a method, else `None`. */
export type BuiltinImpl = (
  thread: Thread,
  args: Value[],
  kwargs: Array<[string, Value]> | null,
  self: Value,
) => Value;

/** A native function or bound method (`len`, `[].append`). */
export class Builtin extends StarlarkObject implements Callable {
  constructor(
    readonly name: string,
    readonly impl: BuiltinImpl,
    /** Receiver of a bound method; `undefined` for a plain function. */
    readonly recv: Value | undefined = undefined,
  ) {
    super();
  }

  override get typeName(): string {
    return 'builtin_function_or_method';
  }

  call(thread: Thread, args: Value[], kwargs: Array<[string, Value]> | null): Value {
    return this.impl(thread, args, kwargs, this.recv === undefined ? None : this.recv);
  }

  override freeze(): void {
    if (this.frozen) return;
    this.frozen = true;
    if (this.recv instanceof StarlarkObject) this.recv.freeze();
  }

  override hash(): number {
    return javaStringHash(this.name) >>> 0;
  }

  override equals(other: Value, _depth: number): boolean {
    if (this === other) return true;
    // Two lookups of the same method on the same receiver are the same method.
    return (
      other instanceof Builtin &&
      this.recv !== undefined &&
      other.recv === this.recv &&
      other.impl === this.impl
    );
  }

  override repr(): string {
    if (this.recv === undefined) return `<built-in function ${this.name}>`;
    return `<built-in method ${this.name} of ${typeName(this.recv)} value>`;
  }
}

/** Wraps a native function as a Starlark builtin. */
export function builtin(name: string, impl: BuiltinImpl): Builtin {
  return new Builtin(name, impl);
}

/** Methods of built-in types by `type()` name, filled in by the library (see `src/starlark/lib`). */
const methodTables = new Map<string, Map<string, BuiltinImpl>>();

export function registerMethods(type: string, methods: Record<string, BuiltinImpl>): void {
  let table = methodTables.get(type);
  if (table === undefined) {
    table = new Map();
    methodTables.set(type, table);
  }
  for (const [name, impl] of Object.entries(methods)) table.set(name, impl);
}

/** Native method `name` of values of type `type`, if any. */
export function lookupMethod(type: string, name: string): BuiltinImpl | undefined {
  return methodTables.get(type)?.get(name);
}

export function methodNames(type: string): string[] {
  const t = methodTables.get(type);
  return t === undefined ? [] : [...t.keys()];
}
