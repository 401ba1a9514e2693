/** More lines than this (or characters, for text in few long lines) and the text is collapsed. */
const COLLAPSED_LINES = 20;
const COLLAPSED_CHARS = 2_000;

export function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** Whether `text` is long enough to start collapsed. */
export function isLong(text: string): boolean {
  return lineCount(text) > COLLAPSED_LINES || text.length > COLLAPSED_CHARS;
}
