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
import type { Emitter } from './gen-emitter.js';
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
  const bits = typeof m === 'bigint' && m > 0n ? pow2Bits(m) : -1;
  if (bits > 0) {
    const p = bi === undefined ? toBig(a) : toBig(a) * toBig(bi);
    return normInt(BigInt.asUintN(bits, s.minus ? p - toBig(dd) : p + toBig(dd)));
  }
  let v = bi === undefined ? a : intMul(a, bi);
  if (d !== undefined) v = s.minus ? intSub(v, dd) : intAdd(v, dd);
  if (typeof v === 'number' && typeof m === 'number' && v >= 0 && m > 0) return v % m;
  f.pos = s.modPos;
  return binary('%', v, m, f.thread);
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
  };
  const a = genExpr(em, mul !== null ? mul.x : (sum as A.BinaryExpr).x);
  const b = y === null ? 'undefined' : genExpr(em, y);
  const d = z === null ? 'undefined' : genExpr(em, z);
  const m = genExpr(em, e.y);
  const t = em.temp();
  em.emit(`${t} = modPow2(f, ${em.k(site)}, ${a}, ${b}, ${d}, ${m});`);
  return t;
}
