import { foldCase, foldedUnits } from './case-fold.js';

/**
 * A multi-pattern matcher (Aho-Corasick) over UTF-16 code units, built into typed arrays.
 *
 * Why our own: the redactor needs every occurrence (overlapping ones included, so that they can be
 * merged into one marker), a state that survives across stream chunks, and the depth of that state
 * (how much of the tail may still become a match). Libraries report non-overlapping matches only.
 *
 * Layout: code units map to a small class alphabet (0 = "in no pattern"). States are numbered in
 * breadth-first order, so the shallow states, where a scan of ordinary text spends its time, come
 * first; those get a full transition row (one array read per character). Deeper states keep only
 * their own edges plus a failure link, which is walked back towards the dense rows.
 */

export interface Pattern {
  text: string;
  /** Reported with each match (the redactor uses the index of the secret). */
  tag: number;
}

export type MatchSink = (start: number, end: number, tag: number) => void;

export interface Automaton {
  readonly stateCount: number;
  readonly maxPatternLength: number;
  /**
   * Feeds `text` from `state`; for each position where a pattern ends, reports the longest one
   * ending there (shorter ones lie inside it). Positions are `offset` + index in `text`.
   * Returns the state after the last character.
   */
  scan(text: string, state: number, offset: number, sink: MatchSink): number;
  /** Length of the longest tail of the text seen that is still a prefix of some pattern. */
  depth(state: number): number;
}

export interface AutomatonOptions {
  /** Upper bound on the dense transition table, in entries (4 bytes each). */
  denseBudget?: number;
  /** States deeper than this never get a dense row: ordinary text rarely reaches them. */
  denseDepth?: number;
  /**
   * Match the case variants of every letter alike (`case-fold.ts`: A–Z and a–z, Ä and ä, Σ, σ
   * and ς). Costs nothing at scan time: a code unit maps to its fold's class, and the patterns
   * are folded before the trie is built.
   */
  foldCase?: boolean;
}

const DEFAULT_DENSE_BUDGET = 2 * 1024 * 1024;
const DEFAULT_DENSE_DEPTH = 4;

export function buildAutomaton(
  given: readonly Pattern[],
  options: AutomatonOptions = {},
): Automaton {
  const fold = options.foldCase === true;
  const patterns = fold ? given.map((p) => ({ text: foldCase(p.text), tag: p.tag })) : given;
  const classOf = new Int32Array(65536);
  let classes = 1;
  let totalChars = 0;
  let maxPatternLength = 0;
  for (const { text } of patterns) {
    totalChars += text.length;
    maxPatternLength = Math.max(maxPatternLength, text.length);
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (classOf[code] === 0) classOf[code] = classes++;
    }
  }
  if (fold) for (const [unit, folded] of foldedUnits()) classOf[unit] = classOf[folded] as number;
  const K = classes;

  // 1. The trie, built from the patterns in sorted order: each one shares with the previous one
  // exactly their common prefix, so no child lookup is needed. The sort is stable, so among equal
  // texts the first given (the caller's priority) claims the node.
  const sorted = patterns
    .filter((p) => p.text.length > 0)
    .sort((x, y) => (x.text < y.text ? -1 : x.text > y.text ? 1 : 0));
  const cap = totalChars + 1;
  const depthOld = new Int32Array(cap);
  const tagOld = new Int32Array(cap).fill(-1);
  const parentOld = new Int32Array(cap);
  const classInOld = new Int32Array(cap);
  const path = new Int32Array(maxPatternLength + 1);
  let count = 1;
  let previous = '';
  for (const { text, tag } of sorted) {
    let common = 0;
    const limit = Math.min(text.length, previous.length);
    while (common < limit && text.charCodeAt(common) === previous.charCodeAt(common)) common++;
    for (let i = common; i < text.length; i++) {
      const node = count++;
      parentOld[node] = path[i] as number;
      classInOld[node] = classOf[text.charCodeAt(i)] as number;
      depthOld[node] = i + 1;
      path[i + 1] = node;
    }
    const end = path[text.length] as number;
    if (tagOld[end] === -1) tagOld[end] = tag;
    previous = text;
  }

  // 2. Children lists (CSR) in old numbering.
  const childStartOld = new Int32Array(count + 1);
  for (let node = 1; node < count; node++) {
    const at = (parentOld[node] as number) + 1;
    childStartOld[at] = (childStartOld[at] as number) + 1;
  }
  for (let i = 0; i < count; i++) {
    childStartOld[i + 1] = (childStartOld[i + 1] as number) + (childStartOld[i] as number);
  }
  const fillPos = childStartOld.slice(0, count);
  const childClsOld = new Int32Array(count);
  const childNodeOld = new Int32Array(count);
  for (let node = 1; node < count; node++) {
    const parent = parentOld[node] as number;
    const at = fillPos[parent] as number;
    fillPos[parent] = at + 1;
    childClsOld[at] = classInOld[node] as number;
    childNodeOld[at] = node;
  }

  // 3. Breadth-first renumbering.
  const order = new Int32Array(count);
  const newId = new Int32Array(count);
  let head = 0;
  let tail = 1;
  while (head < tail) {
    const old = order[head++] as number;
    for (let e = childStartOld[old] as number; e < (childStartOld[old + 1] as number); e++) {
      const child = childNodeOld[e] as number;
      newId[child] = tail;
      order[tail++] = child;
    }
  }

  const budget = options.denseBudget ?? DEFAULT_DENSE_BUDGET;
  const maxDenseDepth = options.denseDepth ?? DEFAULT_DENSE_DEPTH;
  let shallow = 1;
  while (shallow < count && (depthOld[order[shallow] as number] as number) <= maxDenseDepth)
    shallow++;
  const denseCount = Math.max(1, Math.min(shallow, Math.floor(budget / K)));

  const fail = new Int32Array(count);
  const out = new Int32Array(count);
  const outTag = new Int32Array(count).fill(-1);
  const depthArr = new Int32Array(count);
  const dense = new Int32Array(denseCount * K);
  const sparseStart = new Int32Array(count + 1);
  for (let v = denseCount; v < count; v++) {
    const old = order[v] as number;
    sparseStart[v + 1] =
      (sparseStart[v] as number) +
      (childStartOld[old + 1] as number) -
      (childStartOld[old] as number);
  }
  const sparseCls = new Int32Array(sparseStart[count] as number);
  const sparseNode = new Int32Array(sparseStart[count] as number);

  // The full transition function, valid once every state shallower than `t` is finished.
  const delta = (t: number, c: number): number => {
    while (t >= denseCount) {
      for (let e = sparseStart[t] as number, end = sparseStart[t + 1] as number; e < end; e++) {
        if (sparseCls[e] === c) return sparseNode[e] as number;
      }
      t = fail[t] as number;
    }
    return dense[t * K + c] as number;
  };

  // Parents are finished before their children in BFS order, and every failure target is shallower.
  const parentOf = new Int32Array(count);
  const classIn = new Int32Array(count);
  for (let v = 0; v < count; v++) {
    const old = order[v] as number;
    depthArr[v] = depthOld[old] as number;
    if (v > 0) {
      const u = parentOf[v] as number;
      fail[v] = u === 0 ? 0 : delta(fail[u] as number, classIn[v] as number);
    }
    const f = fail[v] as number;
    if ((tagOld[old] as number) >= 0) {
      out[v] = depthArr[v] as number;
      outTag[v] = tagOld[old] as number;
    } else if (v > 0) {
      out[v] = out[f] as number;
      outTag[v] = outTag[f] as number;
    }
    if (v < denseCount) {
      const row = v * K;
      if (v > 0) dense.set(dense.subarray(f * K, f * K + K), row);
      else dense.fill(0, 0, K);
    }
    let s = sparseStart[v] as number;
    for (let e = childStartOld[old] as number; e < (childStartOld[old + 1] as number); e++) {
      const child = newId[childNodeOld[e] as number] as number;
      const c = childClsOld[e] as number;
      parentOf[child] = v;
      classIn[child] = c;
      if (v < denseCount) dense[v * K + c] = child;
      else {
        sparseCls[s] = c;
        sparseNode[s++] = child;
      }
    }
  }

  return compile({
    classOf,
    K,
    count,
    denseCount,
    maxPatternLength,
    dense,
    fail,
    out,
    outTag,
    depthArr,
    sparseStart,
    sparseCls,
    sparseNode,
  });
}

/** The id-based tables of a linked trie, states in breadth-first order. */
interface Tables {
  classOf: Int32Array;
  K: number;
  count: number;
  denseCount: number;
  maxPatternLength: number;
  dense: Int32Array;
  fail: Int32Array;
  out: Int32Array;
  outTag: Int32Array;
  depthArr: Int32Array;
  sparseStart: Int32Array;
  sparseCls: Int32Array;
  sparseNode: Int32Array;
}

/**
 * The scan-time form; only what it keeps stays alive (the id-based build tables do not). A
 * separate function rather than the tail of `buildAutomaton`, whose closure context would keep
 * every build table reachable from `scan`.
 */
function compile(t: Tables): Automaton {
  const {
    classOf,
    K,
    count,
    denseCount,
    maxPatternLength,
    dense,
    fail,
    out,
    outTag,
    depthArr,
    sparseStart,
    sparseCls,
    sparseNode,
  } = t;
  // Scan-time encoding of a state: a dense state v is v * K (its row offset), a sparse one is
  // D * K + (v - D). A table entry is the encoded target, bitwise-negated when a pattern ends there,
  // so the loop does one read per character and one sign test.
  const D = denseCount;
  const limit = D * K;
  const codeOf = new Int32Array(count);
  for (let v = 0; v < count; v++) {
    const x = v < D ? v * K : limit + (v - D);
    codeOf[v] = (out[v] as number) !== 0 ? ~x : x;
  }
  const encode = (v: number): number => codeOf[v] as number;
  const decode = (x: number): number => (x < limit ? x / K : x - limit + D);
  const table = new Int32Array(limit);
  for (let i = 0; i < limit; i++) table[i] = codeOf[dense[i] as number] as number;
  const edgeCode = new Int32Array(sparseNode.length);
  for (let e = 0; e < sparseNode.length; e++) edgeCode[e] = encode(sparseNode[e] as number);
  const sparseCount = count - D;
  const failCode = new Int32Array(sparseCount);
  for (let i = 0; i < sparseCount; i++) failCode[i] = unsigned(encode(fail[D + i] as number));
  const edgeFrom = sparseStart.subarray(D);

  function scan(text: string, state: number, offset: number, sink: MatchSink): number {
    // Locals rather than closure slots: this loop is the whole cost of redaction.
    const cls = classOf;
    const rows = table;
    const top = limit;
    const from = edgeFrom;
    const edgeCls = sparseCls;
    const edges = edgeCode;
    const back = failCode;
    let s = state;
    for (let i = 0, n = text.length; i < n; i++) {
      const c = cls[text.charCodeAt(i)] as number;
      if (s < top) {
        s = rows[s + c] as number;
      } else {
        let x = s;
        for (;;) {
          if (x < top) {
            x = rows[x + c] as number;
            break;
          }
          const v = x - top;
          let e = from[v] as number;
          const end = from[v + 1] as number;
          while (e < end && edgeCls[e] !== c) e++;
          if (e < end) {
            x = edges[e] as number;
            break;
          }
          x = back[v] as number;
        }
        s = x;
      }
      if (s < 0) {
        s = ~s;
        const v = decode(s);
        const len = out[v] as number;
        sink(offset + i + 1 - len, offset + i + 1, outTag[v] as number);
      }
    }
    return s;
  }

  return {
    stateCount: count,
    maxPatternLength,
    scan,
    depth: (state) => depthArr[decode(state)] as number,
  };
}

/** Failure targets are followed, never reported: drop the "pattern ends here" bit. */
function unsigned(x: number): number {
  return x < 0 ? ~x : x;
}
