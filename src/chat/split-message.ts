/**
 * Splits `text` into pieces of at most `limit` characters (UTF-16 units, as Telegram, Discord and
 * Slack count), cutting at the last line break in a piece, else the last space, else hard; a
 * surrogate pair is never cut in two. A break in the first half of a piece is passed over for a
 * later space, so a short heading line does not become a message of its own. Empty text is one
 * empty piece.
 */
export function splitMessage(text: string, limit: number): string[] {
  if (limit < 2) throw new RangeError('limit must be at least 2');
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    const window = rest.slice(0, limit + 1);
    const line = window.lastIndexOf('\n');
    const space = window.lastIndexOf(' ');
    let cut = line >= limit / 2 ? line : space >= limit / 2 ? space : Math.max(line, space);
    if (cut <= 0) {
      cut = limit;
      const code = rest.charCodeAt(cut - 1);
      if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
      pieces.push(rest.slice(0, cut));
      rest = rest.slice(cut);
      continue;
    }
    // The separator at the cut goes with neither piece.
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut + 1);
  }
  pieces.push(rest);
  return pieces;
}
