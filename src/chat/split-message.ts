/**
 * Splits `text` into pieces of at most `limit` characters (UTF-16 units, as Telegram, Discord and
 * Slack count), cutting at the last line break in a piece, else the last space, else hard; a
 * surrogate pair is never cut in two. Only a break in the second half of a piece counts (a
 * later space wins over an earlier line break, and with neither the cut is hard), so a short
 * heading line never becomes a message of its own. Empty text is one empty piece.
 */
export function splitMessage(text: string, limit: number): string[] {
  if (limit < 2) throw new RangeError('limit must be at least 2');
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    const window = rest.slice(0, limit + 1);
    const line = window.lastIndexOf('\n');
    const space = window.lastIndexOf(' ');
    const cut = line >= limit / 2 ? line : space >= limit / 2 ? space : -1;
    if (cut < 0) {
      // No break in the piece's second half: a hard cut, so that a heading (a schedule's name)
      // is never left as a message of its own before a long unbroken text.
      let hard = limit;
      const code = rest.charCodeAt(hard - 1);
      if (code >= 0xd800 && code <= 0xdbff) hard -= 1;
      pieces.push(rest.slice(0, hard));
      rest = rest.slice(hard);
      continue;
    }
    // The separator at the cut goes with neither piece.
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut + 1);
  }
  pieces.push(rest);
  return pieces;
}
