/**
 * The setup password rule of the spec: at least 16 characters, or at least 12 with three of the
 * four categories (uppercase, lowercase, digit, symbol). Lengths count Unicode code points, so a
 * password of multi-byte characters is judged by what the user typed, not by its UTF-8 size.
 */
export const passwordRule = {
  longMin: 16,
  shortMin: 12,
  categoriesNeeded: 3,
  /** Argon2 hashes any length, but a megabyte "password" is a request to burn CPU. */
  max: 1024,
} as const;

const categories: ReadonlyArray<[string, RegExp]> = [
  ['uppercase', /\p{Lu}/u],
  ['lowercase', /\p{Ll}/u],
  ['digit', /\p{Nd}/u],
  // Anything that is neither a letter nor a number: punctuation, spaces, emoji, marks.
  ['symbol', /[^\p{L}\p{N}]/u],
];

export function characterCount(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** Returns null when the password is acceptable, else a message naming the rule it breaks. */
export function passwordProblem(password: string): string | null {
  const length = characterCount(password);
  if (length > passwordRule.max) {
    return `password must be at most ${passwordRule.max} characters (it has ${length})`;
  }
  if (length >= passwordRule.longMin) return null;
  if (length < passwordRule.shortMin) {
    return `password must be at least ${passwordRule.longMin} characters, or at least ${passwordRule.shortMin} with 3 of: uppercase, lowercase, digit, symbol (it has ${length} characters)`;
  }
  const present = categories.filter(([, re]) => re.test(password)).map(([name]) => name);
  if (present.length >= passwordRule.categoriesNeeded) return null;
  const missing = categories.map(([name]) => name).filter((name) => !present.includes(name));
  return `a password of ${length} characters (fewer than ${passwordRule.longMin}) needs at least 3 of the 4 categories uppercase, lowercase, digit, symbol; it has ${present.length} (missing: ${missing.join(', ')})`;
}

/** Usernames: 1–64 characters, no control characters, no leading or trailing whitespace. */
export function usernameProblem(username: string): string | null {
  const length = characterCount(username);
  if (length < 1 || length > 64) return 'username must be 1 to 64 characters';
  if (/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(username)) {
    return 'username must not contain control or formatting characters';
  }
  if (username.trim() !== username) return 'username must not start or end with whitespace';
  return null;
}
