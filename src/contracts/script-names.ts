import { z } from 'zod';

/**
 * Names as the API takes them (DESIGN.md "sizes"); tools take the same names without `.star`.
 * The first character is a letter or digit, so a name never reads as an option or a hidden file.
 */
export const scriptNamePattern = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}\.star$/;

/** What a refused name is told; the path, body and service checks all say it the same way. */
export function scriptNameMessage(name: unknown): string {
  return `invalid script name ${JSON.stringify(name)}: letters, digits, _ and -, ending in .star`;
}

export const scriptNameSchema = z
  .string()
  .regex(scriptNamePattern, { error: (issue) => scriptNameMessage(issue.input) });

export function isScriptName(name: string): boolean {
  return scriptNamePattern.test(name);
}

/** Tool-server names come without the extension; API names with it. Both map to the API form. */
export function toScriptName(name: string): string {
  return name.endsWith('.star') ? name : `${name}.star`;
}

/** The tool-server form of a name: without `.star`. */
export function bareScriptName(name: string): string {
  return name.replace(/\.star$/, '');
}

/** Largest accepted source, in UTF-8 bytes (DESIGN.md "sizes"). */
export const maxSourceBytes = 256 * 1024;
