import { hiddenName } from '../../src/scripts/hidden-characters.js';

/** A character a reader cannot see, named as the script detail's `hidden_characters` names it. */
export interface HiddenMark {
  code: string;
  name: string;
}

/**
 * `text` split into what shows as it is and the invisible or bidirectional-control characters,
 * which the diff replaces by a visible mark: kept as they are they would hide, or reorder on
 * screen, the code a reviewer approves.
 */
export function visibleParts(text: string): Array<string | HiddenMark> {
  const out: Array<string | HiddenMark> = [];
  let plain = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    const name = hiddenName(cp);
    if (name === null) {
      plain += ch;
      continue;
    }
    if (plain) out.push(plain);
    plain = '';
    out.push({ code: `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`, name });
  }
  if (plain || out.length === 0) out.push(plain);
  return out;
}
