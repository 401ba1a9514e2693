/** Names as the API takes them; tools take the same names without `.star`. */
export const scriptNamePattern = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}\.star$/;

/** Largest accepted source, in UTF-8 bytes (DESIGN.md "sizes"). */
export const maxSourceBytes = 256 * 1024;

export function isScriptName(name: string): boolean {
  return scriptNamePattern.test(name);
}

/** Tool-server names come without the extension; API names with it. Both map to the API form. */
export function toScriptName(name: string): string {
  return name.endsWith('.star') ? name : `${name}.star`;
}
