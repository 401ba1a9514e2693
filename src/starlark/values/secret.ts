import { chargeWork } from './work.js';
import {
  StarlarkError,
  StarlarkObject,
  type Thread,
  type Value,
  type ValueIterator,
} from './value.js';

/**
 * Opaque values (`type()` is `"secret"`): text a script may carry and combine but never read.
 * The host hands out atoms, which hold no value, only the names shown for them; the interpreter
 * composes them with plain strings (`+`, `%` and `.format()` arguments, `"".join`) into new
 * secrets listing their parts in order, and refuses everything that would compute on the
 * characters (indexing, slicing, `len`, iteration, comparison, hashing, `in`, methods, JSON,
 * conversions) with a `SecretReadError` naming the secret. Only the host, reading `parts`, turns
 * a secret back into text, at the place it sends it.
 */
export interface SecretAtom {
  /** The names of the host's secrets this atom is made of, in order. */
  readonly secretNames: readonly string[];
}

/** A plain string of the script's own, or an atom of the host's. */
export type SecretPart = string | SecretAtom;

/** Something a script did that would read a secret's value; the run fails with it. */
export class SecretReadError extends StarlarkError {
  constructor(
    readonly secretNames: readonly string[],
    what: string,
  ) {
    super(
      `${what}: cannot read ${secretLabel(secretNames)}: a script holds a handle to a secret, not its value`,
    );
  }
}

function secretLabel(names: readonly string[]): string {
  return `${names.length === 1 ? 'secret' : 'secrets'} ${names.join(', ')}`;
}

export class Secret extends StarlarkObject {
  /** Adjacent strings merged, never empty ones; at least one atom. */
  readonly parts: readonly SecretPart[];

  constructor(parts: readonly SecretPart[]) {
    super();
    this.parts = parts;
    this.frozen = true;
  }

  override get typeName(): string {
    return 'secret';
  }

  /** The secrets it is made of, each once, in order of first appearance. */
  names(): string[] {
    const out: string[] = [];
    for (const part of this.parts) {
      if (typeof part === 'string') continue;
      for (const name of part.secretNames) if (!out.includes(name)) out.push(name);
    }
    return out;
  }

  /** The run's error for `what` applied to this secret. */
  refuse(what: string): SecretReadError {
    return new SecretReadError(this.names(), what);
  }

  override freeze(): void {}

  /** A handle is set (`secrets.get` answers None otherwise); whether its text is empty stays unknown. */
  override truth(): boolean {
    return true;
  }

  override hash(): number {
    throw this.refuse('hash');
  }

  override hashKey(): unknown {
    throw this.refuse('hash');
  }

  override equals(_other: Value, _depth: number): boolean {
    throw this.refuse('==');
  }

  override compareSameType(_other: Value, _depth: number): number | undefined {
    throw this.refuse('comparison');
  }

  override compareOp(op: '<' | '<=' | '>' | '>=', _other: Value): boolean | undefined {
    throw this.refuse(op);
  }

  /** The script's own text as it is, each atom as `<secret NAME>`: nothing of a value. */
  override repr(): string {
    let out = '';
    for (const part of this.parts) {
      out += typeof part === 'string' ? part : `<secret ${part.secretNames.join(', ')}>`;
    }
    return out;
  }

  override getAttr(name: string, _thread: Thread | null): Value | undefined {
    throw this.refuse(`.${name}`);
  }

  override binary(
    op: string,
    other: Value,
    side: 'left' | 'right',
    thread: Thread | null,
  ): Value | undefined {
    if (op === '+') {
      if (typeof other !== 'string' && !(other instanceof Secret)) return undefined;
      return side === 'left'
        ? composeSecret([this, other], thread)
        : composeSecret([other, this], thread);
    }
    throw this.refuse(op);
  }

  override length(): number | undefined {
    throw this.refuse('len');
  }

  override iterate(): ValueIterator | undefined {
    throw this.refuse('iteration');
  }

  override getIndex(_key: Value): Value | undefined {
    throw this.refuse('indexing');
  }

  override contains(_key: Value): boolean | undefined {
    throw this.refuse('in');
  }
}

/**
 * The concatenation of `pieces` (strings and secrets) as one secret, or a plain string when
 * none is a secret.
 */
export function composeSecret(pieces: readonly (string | Secret)[], thread: Thread | null): Value {
  const parts: SecretPart[] = [];
  let text = '';
  let secret = false;
  for (const piece of pieces) {
    if (typeof piece === 'string') {
      text += piece;
      continue;
    }
    secret = true;
    for (const part of piece.parts) {
      if (typeof part === 'string') {
        text += part;
        continue;
      }
      if (text !== '') parts.push(text);
      text = '';
      parts.push(part);
    }
  }
  if (!secret) return text;
  if (text !== '') parts.push(text);
  thread?.alloc(parts.length);
  chargeWork(thread, parts.length);
  return new Secret(parts);
}

/** Throws the read error when `v` is a secret: for a refusal path whose usual message names only a type. */
export function refuseSecret(v: Value | undefined, what: string): void {
  if (v instanceof Secret) throw v.refuse(what);
}

/** The first secret of `values`, for refusal paths that look at several operands. */
export function firstSecret(...values: Array<Value | undefined>): Secret | undefined {
  for (const v of values) if (v instanceof Secret) return v;
  return undefined;
}
