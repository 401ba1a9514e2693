/** Host test fixtures predeclared in the go suite: `hasfields`, `fibonacci`, `struct`, `gensym`. */
import {
  Builtin,
  List,
  StarlarkError,
  StarlarkObject,
  attrHint,
  equals,
  freezeValue,
  repr,
  type Thread,
  type Value,
  type ValueIterator,
} from '../index.js';

class HasFields extends StarlarkObject {
  private readonly attrs = new Map<string, Value>();

  override get typeName(): string {
    return 'hasfields';
  }

  override repr(): string {
    return 'hasfields';
  }

  override hash(): number {
    return 42;
  }

  override freeze(): void {
    if (this.frozen) return;
    this.frozen = true;
    for (const v of this.attrs.values()) freezeValue(v);
  }

  override getAttr(name: string): Value | undefined {
    return this.attrs.get(name);
  }

  override attrNames(): string[] {
    return [...this.attrs.keys()].sort();
  }

  override setAttr(name: string, v: Value): void {
    if (this.frozen) throw new StarlarkError('cannot set field on a frozen hasfields');
    if (name.startsWith('no'))
      throw new StarlarkError(`no .${name} field${attrHint(name, this.attrNames())}`);
    this.attrs.set(name, v);
  }

  override binary(op: string, other: Value, side: 'left' | 'right'): Value | undefined {
    return op === '+' && side === 'right' && other instanceof List ? 42 : undefined;
  }
}

class Fibonacci extends StarlarkObject {
  override get typeName(): string {
    return 'fib';
  }

  override repr(): string {
    return 'fib';
  }

  override hash(): number {
    throw new StarlarkError('fib is unhashable');
  }

  override iterate(): ValueIterator {
    let a = 0;
    let b = 1;
    return {
      next: () => {
        const r = a;
        [a, b] = [b, a + b];
        return r;
      },
      done: () => {},
    };
  }
}

class Symbol extends StarlarkObject {
  constructor(readonly name: string) {
    super();
  }

  override get typeName(): string {
    return 'symbol';
  }

  override repr(): string {
    return this.name;
  }

  override hash(): number {
    return 7;
  }

  call(_thread: Thread, args: Value[], kwargs: Array<[string, Value]> | null): Value {
    if (args.length > 0) throw new StarlarkError(`${this.name}: unexpected positional arguments`);
    return new Struct(this, kwargs ?? []);
  }
}

export class Struct extends StarlarkObject {
  private readonly fields: Map<string, Value>;

  constructor(
    readonly ctor: Symbol | null,
    kwargs: Array<[string, Value]>,
  ) {
    super();
    this.fields = new Map([...kwargs].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
  }

  override get typeName(): string {
    return 'struct';
  }

  override freeze(): void {
    if (this.frozen) return;
    this.frozen = true;
    for (const v of this.fields.values()) freezeValue(v);
  }

  override repr(): string {
    const parts = [...this.fields].map(([k, v]) => `${k} = ${repr(v)}`);
    return `${this.ctor === null ? 'struct' : this.ctor.name}(${parts.join(', ')})`;
  }

  override hash(): number {
    throw new StarlarkError('unhashable type: struct');
  }

  override getAttr(name: string): Value | undefined {
    const v = this.fields.get(name);
    if (v !== undefined) return v;
    const prefix = this.ctor === null ? '' : `${this.ctor.name} `;
    throw new StarlarkError(
      `${prefix}struct has no .${name} attribute${attrHint(name, this.fields.keys())}`,
    );
  }

  override attrNames(): string[] {
    return [...this.fields.keys()];
  }

  override setAttr(name: string): void {
    throw new StarlarkError(`cannot assign to struct field .${name}`);
  }

  override equals(other: Value, depth: number): boolean {
    if (
      !(other instanceof Struct) ||
      other.ctor !== this.ctor ||
      other.fields.size !== this.fields.size
    )
      return false;
    for (const [k, v] of this.fields) {
      const w = other.fields.get(k);
      if (w === undefined || (depth > 0 && !equals(v, w))) return false;
    }
    return true;
  }

  override binary(op: string, other: Value, side: 'left' | 'right'): Value | undefined {
    if (op !== '+' || side !== 'left' || !(other instanceof Struct)) return undefined;
    if (other.ctor !== this.ctor) {
      throw new StarlarkError(
        `cannot add structs of different constructors: ${this.ctorName()} + ${other.ctorName()}`,
      );
    }
    return new Struct(this.ctor, [...this.fields, ...other.fields]);
  }

  private ctorName(): string {
    return this.ctor === null ? 'struct' : this.ctor.name;
  }
}

export function makeFixtures(withGensym: boolean): Map<string, Value> {
  const m = new Map<string, Value>();
  m.set(
    'struct',
    new Builtin('struct', (_t, args, kwargs) => {
      if (args.length > 0) throw new StarlarkError('struct: unexpected positional arguments');
      return new Struct(null, kwargs ?? []);
    }),
  );
  if (withGensym) {
    m.set(
      'gensym',
      new Builtin('gensym', (_t, _args, kwargs) => {
        const name = kwargs?.find(([k]) => k === 'name')?.[1];
        if (typeof name !== 'string') throw new StarlarkError('gensym: missing name');
        return new Symbol(name);
      }),
    );
  } else {
    m.set('hasfields', new Builtin('hasfields', () => new HasFields()));
    m.set('fibonacci', new Fibonacci());
  }
  return m;
}
