/**
 * Binary operators as generated JavaScript: the small-int and same-type fast paths inline (as
 * `compile-binary.ts` has them), everything else through a runtime helper given the position.
 * The closures' fused shapes (`(x * y + z) % m`) have their own helpers (gen-fused.ts) when their
 * operands allow, and are otherwise the generic operators applied in order.
 */
import type * as A from '../syntax/ast.js';
import { genExpr } from './gen-expr.js';
import { genFused } from './gen-fused.js';
import { MAX, type Emitter } from './gen-emitter.js';

/** An int literal atom (printed by `num`), whose type needs no test. */
const isNum = (a: string): boolean => /^[0-9]/.test(a);

function bothNum(a: string, b: string): string {
  const tests = [a, b].filter((x) => !isNum(x)).map((x) => `typeof ${x} === 'number'`);
  return tests.length === 0 ? 'true' : tests.join(' && ');
}

/** `t = big`, back to a number when it is within the safe range (`normInt` inline). */
const normBig = (t: string, big: string): string =>
  `(${t} = ${big}) > MAXBIG || ${t} < -MAXBIG ? ${t} : toNumber(${t})`;

/** A shift count `intShift` takes without an error. */
const smallCount = (b: string): string =>
  isNum(b) ? `${b} < 512` : `typeof ${b} === 'number' && ${b} >= 0 && ${b} < 512`;

/**
 * The test and value of `a ^ b` with a big int operand, before a ` : fallback`: hashes mix a
 * small int into a big accumulator (`h ^ ord(c)`) and PRNGs a big int into another.
 */
export function bigXor(t: string, a: string, b: string): string {
  return `typeof ${a} === 'bigint' && (typeof ${b} === 'number' || typeof ${b} === 'bigint') ? ${normBig(t, `${a} ^ toBigInt(${b})`)}`;
}

/** Operators whose result is always a bool. */
const BOOL_OPS = new Set(['<', '<=', '>', '>=', '==', '!=', 'in', 'not in']);

/** Comparison operators, printed from this table (never from the tree). */
const COMPARE = new Map([
  ['<', '<'],
  ['<=', '<='],
  ['>', '>'],
  ['>=', '>='],
]);

function shortCircuit(em: Emitter, e: A.BinaryExpr): string {
  const a = genExpr(em, e.x);
  const t = em.temp();
  em.emit(`${t} = ${a};`);
  em.emit(e.op === 'and' ? `if (${em.truthy(t)}) {` : `if (!${em.truthy(t)}) {`);
  em.branch(() => em.emit(`${t} = ${genExpr(em, e.y)};`));
  em.emit('}');
  return t;
}

export function genBinary(em: Emitter, e: A.BinaryExpr): string {
  const op = e.op;
  if (op === 'and' || op === 'or') return shortCircuit(em, e);
  if (op === '%') {
    const fused = genFused(em, e);
    if (fused !== null) return fused;
  }
  const a = genExpr(em, e.x);
  const b = genExpr(em, e.y);
  const t = em.temp();
  const p = em.pos(e);
  const both = bothNum(a, b);
  if (BOOL_OPS.has(op)) em.markBool(t);
  const safe = `(${t} = ${a} OP ${b}) <= ${MAX} && ${t} >= -${MAX}`;
  switch (op) {
    case '+':
      if (typeof em.constValue(a) === 'string' || typeof em.constValue(b) === 'string') {
        // `"key-" + s`: a string literal operand makes string concatenation the case to inline.
        const [x, y] = [em.obj(a), em.obj(b)];
        const tests = [x, y].filter((v) => typeof em.constValue(v) !== 'string');
        const types = tests.map((v) => `typeof ${v} === 'string' && `).join('');
        em.emit(
          `${t} = ${types}${x}.length + ${y}.length <= th.maxAlloc ? ${x} + ${y} : add(f, ${p}, ${x}, ${y});`,
        );
        break;
      }
      em.emit(`${t} = ${both} && ${safe.replace('OP', '+')} ? ${t} : add(f, ${p}, ${a}, ${b});`);
      break;
    case '-':
      em.emit(`${t} = ${both} && ${safe.replace('OP', '-')} ? ${t} : sub(f, ${p}, ${a}, ${b});`);
      break;
    case '*':
      em.emit(
        `${t} = ${both} && ${safe.replace('OP', '*')} ? ${t} + 0 : mul(f, ${p}, ${a}, ${b});`,
      );
      break;
    case '%':
      em.emit(`${t} = ${both} && ${a} >= 0 && ${b} > 0 ? ${a} % ${b} : mod(f, ${p}, ${a}, ${b});`);
      break;
    case '//':
      // Small operands only: float division of large ints may round across an integer.
      em.emit(
        `${t} = ${both} && (${a} | 0) === ${a} && (${b} | 0) === ${b} && ${b} !== 0 ? Math.floor(${a} / ${b}) + 0 : bin(f, ${p}, ${em.k(op)}, ${a}, ${b});`,
      );
      break;
    case '==':
    case '!=': {
      // Against an int or string literal, one type test says the other operand's type.
      const lit = [a, b].find((x) => isNum(x) || typeof em.constValue(x) === 'string');
      const other = lit === a ? b : a;
      const kind = lit !== undefined && isNum(lit) ? 'number' : 'string';
      const same =
        lit !== undefined && !isNum(other) && em.constValue(other) === undefined
          ? `typeof ${other} === '${kind}'`
          : `typeof ${a} === typeof ${b} && (typeof ${a} === 'number' || typeof ${a} === 'string' || typeof ${a} === 'boolean')`;
      const js = op === '==' ? '===' : '!==';
      em.emit(`${t} = ${same} ? ${a} ${js} ${b} : bin(f, ${p}, ${em.k(op)}, ${a}, ${b});`);
      break;
    }
    case '^':
      em.emit(`${t} = ${bigXor(t, a, b)} : xor(f, ${p}, ${a}, ${b});`);
      break;
    case '&':
      // Masks of small ints are JS's own 32-bit `&`.
      em.emit(
        `${t} = ${both} && (${a} | 0) === ${a} && (${b} | 0) === ${b} ? ${a} & ${b} : and(f, ${p}, ${a}, ${b});`,
      );
      break;
    case '|':
      em.emit(`${t} = or(f, ${p}, ${a}, ${b});`);
      break;
    case '<<':
      // A big int is never within the safe range, and shifting it left keeps it out.
      em.emit(
        `${t} = typeof ${a} === 'bigint' && ${smallCount(b)} ? ${a} << toBigInt(${b}) : shl(f, ${p}, ${a}, ${b});`,
      );
      break;
    case '>>':
      em.emit(
        `${t} = typeof ${a} === 'bigint' && ${smallCount(b)} ? ${normBig(t, `${a} >> toBigInt(${b})`)} : shr(f, ${p}, ${a}, ${b});`,
      );
      break;
    default: {
      const js = COMPARE.get(op);
      if (js !== undefined) {
        em.emit(`${t} = ${both} ? ${a} ${js} ${b} : bin(f, ${p}, ${em.k(op)}, ${a}, ${b});`);
      } else {
        em.emit(`${t} = bin(f, ${p}, ${em.k(op)}, ${a}, ${b});`);
      }
    }
  }
  return t;
}
