import { z } from 'zod';

/** DESIGN.md "Decisions": secret names. The body alone, for patterns that embed a name. */
export const SECRET_NAME_BODY = '[A-Za-z_][A-Za-z0-9_]{0,127}';
export const SECRET_NAME_PATTERN = new RegExp(`^${SECRET_NAME_BODY}$`);

/** What a refused name is told, wherever a secret name is taken. */
export const secretNameRule =
  'a secret name is a letter or _ followed by up to 127 letters, digits or _';

export const secretNameSchema = z.string().regex(SECRET_NAME_PATTERN, secretNameRule);

export function isSecretName(name: string): boolean {
  return SECRET_NAME_PATTERN.test(name);
}
