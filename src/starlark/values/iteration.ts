import type { Value, ValueIterator } from './value.js';

/** Something whose mutation is refused while iterators are open over it. */
export interface IterationGuarded {
  itercount: number;
}

/**
 * Iterator over a backing array that holds its owner's iteration count up while open, so
 * that mutation during a for-loop fails instead of corrupting the loop.
 */
export class ArrayIterator implements ValueIterator {
  private i = 0;
  private open = true;

  constructor(
    private readonly items: readonly Value[],
    private readonly owner: IterationGuarded | null,
  ) {
    if (owner !== null) owner.itercount++;
  }

  next(): Value | undefined {
    const items = this.items;
    return this.i < items.length ? items[this.i++] : undefined;
  }

  done(): void {
    if (this.open) {
      this.open = false;
      if (this.owner !== null) this.owner.itercount--;
    }
  }
}
