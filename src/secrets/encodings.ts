/**
 * The texts a secret value may appear as in output: the value itself, each line of a multi-line
 * value, and the encodings a script or tool commonly applies before printing it.
 */

/** Lines and encodings shorter than this would match ordinary text; the value itself always counts. */
export const MIN_DERIVED_LENGTH = 4;

/**
 * The value itself comes first. A value with cased letters beyond ASCII also yields the forms of
 * its upper- and lower-cased text: the redactor's matcher folds case one code unit at a time, but
 * `ß` upper-cases to `SS`, and the UTF-8 bytes of `Ä` and `ä` (so their base64, hex and
 * percent forms) differ in more than case.
 */
export function patternsFor(value: string): string[] {
  const found = new Set<string>([value]);
  addForms(value, found);
  if (/[^\x00-\x7f]/.test(value)) {
    for (const variant of [value.toUpperCase(), value.toLowerCase()]) {
      if (variant === value) continue;
      found.add(variant);
      addForms(variant, found);
    }
  }
  return [...found];
}

function addForms(value: string, found: Set<string>): void {
  const add = (text: string) => {
    if (text.length >= MIN_DERIVED_LENGTH) found.add(text);
  };
  const bytes = Buffer.from(value, 'utf8');

  const lines = value.split(/\r\n|\n|\r/);
  if (lines.length > 1) for (const line of lines) add(line);

  for (const text of base64Forms(bytes)) add(text);

  add(encodeURIComponent(value));
  add(new URLSearchParams({ v: value }).toString().slice(2));
  // What a URL parser (WHATWG: fetch, Node's URL) writes for the value in each part of a URL,
  // and the same with `+` for spaces, as form-minded code writes a query.
  for (const set of [pathSet, querySet, specialQuerySet, fragmentSet, userinfoSet]) {
    const encoded = percentEncode(value, set);
    add(encoded);
    add(encoded.replaceAll('%20', '+'));
  }
  const hexLower = bytes.toString('hex');
  const hexUpper = hexLower.toUpperCase();
  add(hexLower);
  add(hexUpper);
  add(hexLower.replace(/../g, '%$&'));
  add(hexUpper.replace(/../g, '%$&'));

  const json = JSON.stringify(value).slice(1, -1);
  add(json);
  add(json.replace(/[^\x00-\x7e]/g, (ch) => unicodeEscape(ch, false)));
  add(json.replace(/[^\x00-\x7e]/g, (ch) => unicodeEscape(ch, true)));
}

/**
 * The WHATWG URL standard's percent-encode sets (https://url.spec.whatwg.org/#percent-encoded-bytes):
 * beyond these ASCII characters, C0 controls and everything above U+007E are always encoded.
 */
const fragmentSet = ' "<>`';
const querySet = ' "#<>';
const specialQuerySet = `${querySet}'`;
const pathSet = `${querySet}?^\`{}`;
const userinfoSet = `${pathSet}/:;=@[\\]|`;

function percentEncode(value: string, set: string): string {
  // The usual secret (letters, digits, - and _) encodes to itself: no copy.
  if (/^[A-Za-z0-9\-._~]*$/.test(value)) return value;
  let out = '';
  for (const ch of value) {
    const code = ch.codePointAt(0)!;
    if (code > 0x1f && code < 0x7f && !set.includes(ch)) {
      out += ch;
      continue;
    }
    for (const byte of Buffer.from(ch, 'utf8')) {
      out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    }
  }
  return out;
}

function unicodeEscape(ch: string, upper: boolean): string {
  const hex = ch.charCodeAt(0).toString(16).padStart(4, '0');
  return `\\u${upper ? hex.toUpperCase() : hex}`;
}

/**
 * Base64 of the value as it sits inside a longer byte string, at each of the three alignments
 * (0, 1 or 2 unknown bytes before it). Only characters whose six bits all come from the value are
 * stable; the forms that end the encoded data add the last partial character, and its padding.
 * Each in the standard and the URL-safe alphabet.
 */
function base64Forms(bytes: Buffer): string[] {
  const forms: string[] = [];
  for (let lead = 0; lead < 3; lead++) {
    const total = lead + bytes.length;
    const padded = Buffer.concat([Buffer.alloc(lead), bytes]).toString('base64');
    // Characters that still carry bits of the unknown leading bytes: 0, 2 or 3.
    const skip = Math.ceil((lead * 8) / 6);
    const stableEnd = Math.floor((total * 8) / 6);
    if (stableEnd <= skip) continue;
    const stable = padded.slice(skip, stableEnd);
    const withPartial = padded.replace(/=+$/, '').slice(skip);
    const withPadding = padded.slice(skip);
    for (const text of [stable, withPartial, withPadding]) {
      forms.push(text, text.replace(/\+/g, '-').replace(/\//g, '_'));
    }
  }
  return forms;
}
