import type { Automaton, MatchSink } from './automaton.js';

/** The id-based tables of a linked trie, states in breadth-first order. */
export interface Tables {
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

/** The scan-time form; only what it keeps stays alive (the id-based build tables do not). */
export function compile(t: Tables): Automaton {
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
