const SIMPLE_ESCAPES: Record<string, number> = {
  a: 7,
  b: 8,
  f: 12,
  n: 10,
  r: 13,
  t: 9,
  v: 11,
  '\\': 92,
  "'": 39,
  '"': 34,
};

function utf8(cp: number, out: number[]): void {
  if (cp < 0x80) out.push(cp);
  else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
  else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
  else
    out.push(
      0xf0 | (cp >> 18),
      0x80 | ((cp >> 12) & 63),
      0x80 | ((cp >> 6) & 63),
      0x80 | (cp & 63),
    );
}

/**
 * Decodes the text between the quotes of a string or bytes literal. Strings decode to
 * UTF-16 (a byte escape becomes the code unit of that value); bytes decode to raw bytes
 * with the literal's own text UTF-8 encoded.
 */
export function decodeStringBody(
  body: string,
  raw: boolean,
  bytes: boolean,
  fail: (msg: string) => never,
): string | Uint8Array {
  if (!bytes && (raw || !body.includes('\\'))) return body.replace(/\r\n/g, '\n');
  const units: number[] = [];
  const out: number[] = [];
  const emitCp = (cp: number): void => {
    if (bytes) utf8(cp, out);
    else if (cp > 0xffff)
      units.push(0xd800 + ((cp - 0x10000) >> 10), 0xdc00 + ((cp - 0x10000) & 0x3ff));
    else units.push(cp);
  };
  const emitByte = (b: number): void => {
    if (bytes) out.push(b);
    else units.push(b);
  };
  let i = 0;
  while (i < body.length) {
    const cp = body.codePointAt(i) as number;
    if (cp === 13 && body[i + 1] === '\n') {
      i++;
      continue;
    }
    if (cp !== 92) {
      emitCp(cp);
      i += cp > 0xffff ? 2 : 1;
      continue;
    }
    const e = body[i + 1] ?? '';
    if (raw) {
      emitCp(92);
      i++;
      continue;
    }
    if (e === '\n') {
      i += 2;
      continue;
    }
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) {
      emitByte(simple);
      i += 2;
      continue;
    }
    if (e >= '0' && e <= '7') {
      let j = i + 1;
      while (
        j < i + 4 &&
        body[j] !== undefined &&
        (body[j] as string) >= '0' &&
        (body[j] as string) <= '7'
      )
        j++;
      const v = parseInt(body.slice(i + 1, j), 8);
      if (v > 255) fail(`octal escape value > 255: ${v}`);
      emitByte(v);
      i = j;
      continue;
    }
    if (e === 'x' || e === 'u' || e === 'U') {
      const n = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      const hex = body.slice(i + 2, i + 2 + n);
      if (hex.length < n || !/^[0-9a-fA-F]+$/.test(hex))
        fail(`invalid escape sequence \\${e}${hex}`);
      const v = parseInt(hex, 16);
      if (e === 'x') {
        if (!bytes && v > 127)
          fail(`non-ASCII hex escape \\x${hex} (use \\u${hex.padStart(4, '0')} instead)`);
        emitByte(v);
      } else {
        if (v > 0x10ffff) fail(`code point out of range: \\${e}${hex} (max \\U0010ffff)`);
        if (v >= 0xd800 && v < 0xe000) fail(`invalid Unicode code point \\${e}${hex}`);
        emitCp(v);
      }
      i += 2 + n;
      continue;
    }
    fail(`invalid escape sequence \\${e}`);
  }
  if (bytes) return Uint8Array.from(out);
  let s = '';
  for (let k = 0; k < units.length; k += 8192)
    s += String.fromCharCode(...units.slice(k, k + 8192));
  return s;
}
