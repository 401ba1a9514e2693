/**
 * The checker's message without its leading "name:line:col: " (`invalid_script` carries the
 * position in its own fields, and the page says it once): "a.star:2:18: got '}'" → "got '}'".
 */
export function withoutPosition(message: string): string {
  return message.replace(/^[^\s:]+:\d+:\d+:\s*/, '');
}
