import { typeName } from './type-name.js';
import { SFloat, StarlarkError, StarlarkObject, type Value, type ValueIterator } from './value.js';

/** Lazy `range(start, stop, step)`; bounds are safe integers. */
export class Range extends StarlarkObject {
  readonly len: number;

  constructor(
    readonly start: number,
    readonly stop: number,
    readonly step: number,
  ) {
    super();
    this.frozen = true;
    this.len = rangeLength(start, stop, step);
  }

  override get typeName(): string {
    return 'range';
  }

  /** Element `i`, for 0 <= i < len. */
  at(i: number): number {
    return this.start + i * this.step;
  }

  override truth(): boolean {
    return this.len > 0;
  }

  override hash(): number {
    throw new StarlarkError('unhashable: range');
  }

  override equals(other: Value, _depth: number): boolean {
    if (!(other instanceof Range) || other.len !== this.len) return false;
    if (this.len === 0) return true;
    return this.start === other.start && (this.len === 1 || this.step === other.step);
  }

  override repr(): string {
    if (this.step !== 1) return `range(${this.start}, ${this.stop}, ${this.step})`;
    if (this.start !== 0) return `range(${this.start}, ${this.stop})`;
    return `range(${this.stop})`;
  }

  override length(): number {
    return this.len;
  }

  override iterate(): ValueIterator {
    return new RangeIterator(this);
  }

  override contains(x: Value): boolean {
    if (typeof x === 'bigint') return false;
    // An integral float acts like the equal int.
    if (x instanceof SFloat) {
      if (!Number.isInteger(x.v)) return false;
      x = x.v;
    }
    if (typeof x !== 'number')
      throw new StarlarkError(`'in <range>' requires integer as left operand, not ${typeName(x)}`);
    const { start, stop, step } = this;
    if (step > 0 ? x < start || x >= stop : x > start || x <= stop) return false;
    return (x - start) % step === 0;
  }
}

function rangeLength(start: number, stop: number, step: number): number {
  if (step > 0) return start < stop ? Math.floor((stop - start - 1) / step) + 1 : 0;
  return start > stop ? Math.floor((start - stop - 1) / -step) + 1 : 0;
}

class RangeIterator implements ValueIterator {
  private i = 0;

  constructor(private readonly r: Range) {}

  next(): Value | undefined {
    return this.i < this.r.len ? this.r.at(this.i++) : undefined;
  }

  done(): void {}
}
