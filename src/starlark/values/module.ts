import { freezeValue } from './freeze.js';
import { StarlarkError, StarlarkObject, type Thread, type Value } from './value.js';

/** A named bag of members, e.g. `json` or `math`: `type()` is "module", members are read-only. */
export class Module extends StarlarkObject {
  readonly members: Map<string, Value>;

  constructor(
    readonly name: string,
    members: Map<string, Value> | Record<string, Value>,
  ) {
    super();
    this.members = members instanceof Map ? members : new Map(Object.entries(members));
  }

  override get typeName(): string {
    return 'module';
  }

  override freeze(): void {
    if (this.frozen) return;
    this.frozen = true;
    for (const v of this.members.values()) freezeValue(v);
  }

  override hash(): number {
    throw new StarlarkError('unhashable: module');
  }

  override repr(): string {
    return `<module "${this.name}">`;
  }

  override getAttr(name: string, _thread: Thread | null): Value | undefined {
    return this.members.get(name);
  }

  override attrNames(): string[] {
    return [...this.members.keys()].sort();
  }

  override setAttr(name: string, _value: Value): void {
    throw new StarlarkError(`can't assign to .${name} field of module`);
  }
}

/** Builds a host module from a record of members (usually builtins). */
export function defineModule(name: string, members: Record<string, Value>): Module {
  return new Module(name, members);
}
