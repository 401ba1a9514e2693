import type { ScriptCapabilities } from './script-schema.js';

/*
 * Characters a reviewer cannot see: zero-width ones and bidirectional controls (the "Trojan
 * Source" trick). Pure and free of server imports: the admin UI marks them in its diff with the
 * same list the script detail reports them by.
 */

/** Names of characters that change what a reader sees without being seen themselves. */
const hiddenNames: Record<number, string> = {
  0x00ad: 'soft hyphen',
  0x061c: 'Arabic letter mark',
  0x115f: 'Hangul choseong filler',
  0x1160: 'Hangul jungseong filler',
  0x180e: 'Mongolian vowel separator',
  0x200b: 'zero width space',
  0x200c: 'zero width non-joiner',
  0x200d: 'zero width joiner',
  0x200e: 'left-to-right mark',
  0x200f: 'right-to-left mark',
  0x202a: 'left-to-right embedding',
  0x202b: 'right-to-left embedding',
  0x202c: 'pop directional formatting',
  0x202d: 'left-to-right override',
  0x202e: 'right-to-left override',
  0x2060: 'word joiner',
  0x2061: 'function application',
  0x2062: 'invisible times',
  0x2063: 'invisible separator',
  0x2064: 'invisible plus',
  0x2066: 'left-to-right isolate',
  0x2067: 'right-to-left isolate',
  0x2068: 'first strong isolate',
  0x2069: 'pop directional isolate',
  0x3164: 'Hangul filler',
  0xfeff: 'zero width no-break space',
  0xffa0: 'halfwidth Hangul filler',
};

export function hiddenName(code: number): string | null {
  if (code >= 0xe0000 && code <= 0xe007f) return 'tag character';
  if (code >= 0xfe00 && code <= 0xfe0f) return 'variation selector';
  return hiddenNames[code] ?? null;
}

/** Every invisible or bidirectional-control character, with its 1-based line and column. */
export function hiddenCharacters(source: string): ScriptCapabilities['hidden_characters'] {
  const found: ScriptCapabilities['hidden_characters'] = [];
  let line = 1;
  let column = 1;
  for (const ch of source) {
    const code = ch.codePointAt(0)!;
    const name = hiddenName(code);
    if (name !== null) {
      found.push({
        line,
        column,
        code: `U+${code.toString(16).toUpperCase().padStart(4, '0')}`,
        name,
      });
    }
    if (ch === '\n') {
      line++;
      column = 1;
    } else column++;
  }
  return found;
}
