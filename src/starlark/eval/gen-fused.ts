/**
 * The closure compiler's fused shapes (`compile-mulmod.ts`, `compile-mod-pow2.ts`) in generated
 * code: `(x * y ± z) % m` computed without the bigint intermediate results when the operands
 * allow. The closures evaluate `z` and `m` only once the product is known to succeed; the
 * generator takes a fused shape only when `y`, `z` and `m` are literals or certainly bound
 * locals, whose evaluation cannot fail or be observed, so evaluating them first is the same.
 */
import { binary, normInt, type Value } from '../values/index.js';
import { intAdd, intMul, intSub, pow2Bits, toBig } from '../values/arith.js';
import type * as A from '../syntax/ast.js';
import { unparen } from '../syntax/ast.js';
import { encodePos } from './context.js';
import { num, type Emitter } from './gen-emitter.js';
import { genExpr } from './gen-expr.js';
import { mulModShape } from './compile-mulmod.js';
import { modPow2Shape } from './compile-mod-pow2.js';
import type { Frame } from './function.js';

/** Positions and operators of one fused site. */
export interface FusedSite {
  readonly k: number;
  readonly minus: boolean;
  readonly mulPos: number;
  readonly sumPos: number;
  readonly modPos: number;
  /** k when the modulus is a literal 2^k (k > 0), else -1 (found at run time). */
  readonly bits: number;
  /** The multiplier as a bigint, when it is an int literal. */
  readonly yBig: bigint | undefined;
}

function isInt(v: Value): v is number | bigint {
  return typeof v === 'number' || typeof v === 'bigint';
}

/** `(a * b ± d) % K`, K = 2^k <= 2^32 a literal (mulModEval, with z and K already evaluated). */
export function mulMod(f: Frame, s: FusedSite, a: Value, b: Value, d: Value | undefined): Value {
  const k = s.k;
  const op = s.minus ? '-' : '+';
  if (typeof a !== 'number' || typeof b !== 'number') {
    f.pos = s.mulPos;
    let v = binary('*', a, b, f.thread);
    if (d !== undefined) {
      f.pos = s.sumPos;
      v = binary(op, v, d, f.thread);
    }
    f.pos = s.modPos;
    return binary('%', v, k, f.thread);
  }
  const dd = d === undefined ? 0 : d;
  if (typeof dd !== 'number') {
    const p = a * b;
    f.pos = s.sumPos;
    const v = binary(op, Number.isSafeInteger(p) ? p + 0 : BigInt(a) * BigInt(b), dd, f.thread);
    f.pos = s.modPos;
    return binary('%', v, k, f.thread);
  }
  // `>>> 0` reduces modulo 2^32, exactly, for any safe int.
  const lo = Math.imul(a, b) >>> 0;
  const t = s.minus ? lo - (dd >>> 0) : lo + (dd >>> 0);
  const r = t % k;
  return r < 0 ? r + k : r + 0;
}

/** `(a * b ± d) % m`, `(a ± d) % m` (b undefined), `(a * b) % m` (d undefined): modPow2Eval. */
export function modPow2(
  f: Frame,
  s: FusedSite,
  a: Value,
  b: Value | undefined,
  d: Value | undefined,
  m: Value,
): Value {
  const op = s.minus ? '-' : '+';
  if (!isInt(a) || (b !== undefined && !isInt(b))) {
    let v = a;
    if (b !== undefined) {
      f.pos = s.mulPos;
      v = binary('*', a, b, f.thread);
    }
    if (d !== undefined) {
      f.pos = s.sumPos;
      v = binary(op, v, d, f.thread);
    }
    f.pos = s.modPos;
    return binary('%', v, m, f.thread);
  }
  const bi = b as number | bigint | undefined;
  let dd: number | bigint = 0;
  if (d !== undefined) {
    if (!isInt(d)) {
      const v = bi === undefined ? a : intMul(a, bi);
      f.pos = s.sumPos;
      const w = binary(op, v, d, f.thread);
      f.pos = s.modPos;
      return binary('%', w, m, f.thread);
    }
    dd = d;
  }
  const bits = s.bits >= 0 ? s.bits : typeof m === 'bigint' && m > 0n ? pow2Bits(m) : -1;
  if (bits > 0) {
    // A literal factor comes converted (`yBig`); a missing addend adds nothing.
    let p = toBig(a);
    if (bi !== undefined) p *= s.yBig ?? toBig(bi);
    if (d !== undefined) p = s.minus ? p - toBig(dd) : p + toBig(dd);
    return normInt(BigInt.asUintN(bits, p));
  }
  let v = bi === undefined ? a : intMul(a, bi);
  if (d !== undefined) v = s.minus ? intSub(v, dd) : intAdd(v, dd);
  if (typeof v === 'number' && typeof m === 'number' && v >= 0 && m > 0) return v % m;
  f.pos = s.modPos;
  return binary('%', v, m, f.thread);
}

/** k when a big int modulus `m` is 2^k, k > 0; else -1. */
export function modBits(m: bigint): number {
  return m > 0n ? pow2Bits(m) : -1;
}

/** The value of an int literal as a bigint, else undefined. */
function literalBig(e: A.Expr): bigint | undefined {
  e = unparen(e);
  if (e.kind !== 'Literal' || e.value.type !== 'int') return undefined;
  const v = e.value.v;
  return typeof v === 'bigint' ? v : BigInt(v);
}

/** k when `e` is a big int literal 2^k (past 2^53, as `modPow2` tests at run time); else -1. */
function literalPow2Bits(e: A.Expr): number {
  e = unparen(e);
  if (e.kind !== 'Literal' || e.value.type !== 'int' || typeof e.value.v !== 'bigint') return -1;
  const v = e.value.v;
  return v > 0n && (v & (v - 1n)) === 0n ? v.toString(2).length - 1 : -1;
}

/** A literal, or a local the emitter knows is bound: evaluating it cannot fail. */
function pure(em: Emitter, e: A.Expr): boolean {
  e = unparen(e);
  if (e.kind === 'Literal') return true;
  return e.kind === 'Ident' && e.binding?.scope === 'local' && em.isBound(e.binding.index);
}

/** The fused form of `e`, or null when `e` has no fused shape with pure operands. */
export function genFused(em: Emitter, e: A.BinaryExpr): string | null {
  const mm = mulModShape(e);
  if (mm !== null) {
    if (!pure(em, mm.mul.y) || (mm.addend !== null && !pure(em, mm.addend))) return null;
    const site: FusedSite = {
      k: mm.k,
      minus: mm.sum !== null && mm.sum.op === '-',
      mulPos: encodePos(mm.mul),
      sumPos: mm.sum === null ? 0 : encodePos(mm.sum),
      modPos: encodePos(e),
      bits: -1,
      yBig: undefined,
    };
    const a = genExpr(em, mm.mul.x);
    const b = genExpr(em, mm.mul.y);
    const d = mm.addend === null ? 'undefined' : genExpr(em, mm.addend);
    const t = em.temp();
    em.emit(`${t} = mulMod(f, ${em.k(site)}, ${a}, ${b}, ${d});`);
    return t;
  }
  const w = modPow2Shape(e);
  if (w === null) return null;
  const { mul, sum } = w;
  const y = mul === null ? null : mul.y;
  const z = sum === null ? null : sum.y;
  if ((y !== null && !pure(em, y)) || (z !== null && !pure(em, z)) || !pure(em, e.y)) return null;
  const site: FusedSite = {
    k: 0,
    minus: sum !== null && sum.op === '-',
    mulPos: mul === null ? 0 : encodePos(mul),
    sumPos: sum === null ? 0 : encodePos(sum),
    modPos: encodePos(e),
    bits: literalPow2Bits(e.y),
    yBig: y === null ? undefined : literalBig(y),
  };
  const a = genExpr(em, mul !== null ? mul.x : (sum as A.BinaryExpr).x);
  const b = y === null ? 'undefined' : genExpr(em, y);
  const d = z === null ? 'undefined' : genExpr(em, z);
  const m = genExpr(em, e.y);
  const t = em.temp();
  const call = `modPow2(f, ${em.k(site)}, ${a}, ${b}, ${d}, ${m})`;
  const zBig = z === null ? undefined : literalBig(z);
  if ((y === null || site.yBig !== undefined) && (z === null || zBig !== undefined)) {
    // `(h * 1099511628211) % 2**64` on a big h, the hashes' and PRNGs' step: bigint operators
    // inline, literal operands as bigint constants, no helper call and no conversion. A
    // modulus in a local is tested at run time (`pow2Bits` remembers the last one).
    let x = a;
    if (site.yBig !== undefined) x = `${x} * ${em.k(site.yBig)}`;
    if (zBig !== undefined) x = `${x} ${site.minus ? '-' : '+'} ${em.k(zBig)}`;
    const literal = site.bits > 0;
    const bits = literal ? num(site.bits) : t;
    const r = `(${t} = asUintN(${bits}, ${x})) > MAXBIG ? ${t} : toNumber(${t})`;
    const test = literal
      ? `typeof ${a} === 'bigint'`
      : `typeof ${a} === 'bigint' && typeof ${m} === 'bigint' && (${t} = modBits(${m})) > 0`;
    em.emit(`${t} = ${test} ? ${r} : ${call};`);
    return t;
  }
  em.emit(`${t} = ${call};`);
  return t;
}
