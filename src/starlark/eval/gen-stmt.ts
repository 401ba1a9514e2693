/**
 * Statements as generated JavaScript, mirroring `compile-stmt.ts`: Starlark control flow
 * becomes JS control flow (a `return` is a JS return, `break` and `continue` are JS's, a
 * `while` loop charges one step per iteration after its condition holds).
 */
import type * as A from '../syntax/ast.js';
import { genExpr, genIdent } from './gen-expr.js';
import { bigXor } from './gen-binary.js';
import { MAX, unsupported, type Emitter } from './gen-emitter.js';
import { genMakeFunction } from './gen-function.js';
import { genAssign, genLoop, isRangeCall } from './gen-loop.js';

function augmented(em: Emitter, s: A.AssignStmt): void {
  const op = em.k(s.op.slice(0, -1));
  const isAdd = s.op === '+=';
  const p = em.pos(s);
  let lhs = s.lhs;
  while (lhs.kind === 'Paren') lhs = lhs.x;
  switch (lhs.kind) {
    case 'Ident': {
      const a = genIdent(em, lhs);
      const b = genExpr(em, s.rhs);
      const t = em.temp();
      if (isAdd)
        em.emit(
          `${t} = typeof ${a} === 'number' && typeof ${b} === 'number' && (${t} = ${a} + ${b}) <= ${MAX} && ${t} >= -${MAX} ? ${t} : augment(f, ${p}, ${op}, ${a}, ${b});`,
        );
      // `x ^= y` on ints is `x = x ^ y` (sets are updated in place, through `augment`).
      else if (s.op === '^=')
        em.emit(`${t} = ${bigXor(t, a, b)} : augment(f, ${p}, ${op}, ${a}, ${b});`);
      else em.emit(`${t} = augment(f, ${p}, ${op}, ${a}, ${b});`);
      genAssign(em, lhs, t);
      return;
    }
    case 'Index': {
      const a = em.obj(genExpr(em, lhs.x));
      const k = genExpr(em, lhs.index);
      const lp = em.pos(lhs);
      const old = em.temp();
      em.emit(`f.pos = ${lp};`);
      // `a[i] += x` on a list: the element read and written in place, when in range.
      const kNum = /^[0-9]/.test(k) ? '' : `typeof ${k} === 'number' && ${k} >= 0 && `;
      const inList = `${a} instanceof List && ${kNum}${k} < ${a}.items.length`;
      em.emit(`${old} = ${inList} ? ${a}.items[${k}] : index(${a}, ${k});`);
      const b = genExpr(em, s.rhs);
      const slow = `augIndex(f, ${p}, ${lp}, ${op}, ${a}, ${k}, ${old}, ${b});`;
      if (!isAdd) {
        em.emit(slow);
        return;
      }
      const sum = em.temp();
      const ok = `typeof ${old} === 'number' && typeof ${b} === 'number' && (${sum} = ${old} + ${b}) <= ${MAX} && ${sum} >= -${MAX}`;
      em.emit(
        `if (${inList} && !${a}.frozen && ${a}.itercount === 0 && ${ok}) { f.pos = ${lp}; ${a}.items[${k}] = ${sum}; } else ${slow}`,
      );
      return;
    }
    case 'Dot': {
      const a = genExpr(em, lhs.x);
      const lp = em.pos(lhs);
      const name = em.k(lhs.name);
      const old = em.temp();
      em.emit(`${old} = attr(f, ${lp}, ${a}, ${name});`);
      const b = genExpr(em, s.rhs);
      em.emit(`augAttr(f, ${p}, ${lp}, ${op}, ${a}, ${name}, ${old}, ${b});`);
      return;
    }
    default:
      return unsupported('augmented assignment target');
  }
}

export function genBlock(em: Emitter, stmts: readonly A.Stmt[]): void {
  for (const s of stmts) genStmt(em, s);
}

function genStmt(em: Emitter, s: A.Stmt): void {
  switch (s.kind) {
    case 'ExprStmt':
      genExpr(em, s.x);
      return;
    case 'Assign': {
      if (s.op !== '=') return augmented(em, s);
      const v = genExpr(em, s.rhs);
      genAssign(em, s.lhs, v);
      return;
    }
    case 'If': {
      const c = genExpr(em, s.cond);
      em.emit(`if (${em.truthy(c)}) {`);
      em.branch(() => genBlock(em, s.then));
      if (s.else.length > 0) {
        em.emit('} else {');
        em.branch(() => genBlock(em, s.else));
      }
      em.emit('}');
      return;
    }
    case 'For': {
      const x = genExpr(em, s.iter);
      genLoop(em, x, s, s.vars, () => genBlock(em, s.body), isRangeCall(em, s.iter));
      return;
    }
    case 'While': {
      em.emit('for (;;) {');
      em.branch(() => {
        const c = genExpr(em, s.cond);
        em.emit(`if (!${em.truthy(c)}) break;`);
        em.emit('step(th);');
        genBlock(em, s.body);
      });
      em.emit('}');
      return;
    }
    case 'Return': {
      if (s.x === null) {
        em.emit('return None;');
        return;
      }
      const v = genExpr(em, s.x);
      em.emit(`return ${v};`);
      return;
    }
    case 'break':
      em.emit('break;');
      return;
    case 'continue':
      em.emit('continue;');
      return;
    case 'pass':
      return;
    case 'Def': {
      const fn = genMakeFunction(em, s.name.name, s.params, s.scope, s, {
        kind: 'stmts',
        body: s.body,
      });
      genAssign(em, s.name, fn);
      return;
    }
    case 'Load':
      return unsupported('load');
  }
}
