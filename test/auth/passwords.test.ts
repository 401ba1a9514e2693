import { describe, expect, it } from 'vitest';
import { createPasswordChecker, hashPassword } from '../../src/auth/passwords.js';

describe('password hashing', () => {
  it('hashes with argon2id and a fresh salt each time', async () => {
    const a = await hashPassword('correct horse battery staple');
    const b = await hashPassword('correct horse battery staple');
    expect(a).toMatch(/^\$argon2id\$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('correct horse');
  });
});

describe('password checker', () => {
  const checker = createPasswordChecker();

  it('accepts the right password and refuses a wrong one', async () => {
    const stored = await hashPassword('correct horse battery staple');
    expect(await checker.check(stored, 'correct horse battery staple')).toBe(true);
    expect(await checker.check(stored, 'correct horse battery stapl')).toBe(false);
    expect(await checker.check(stored, '')).toBe(false);
  });

  it('refuses every password when there is no account, even an empty one', async () => {
    expect(await checker.check(undefined, 'anything at all')).toBe(false);
    expect(await checker.check(undefined, '')).toBe(false);
  });

  it('fails closed on a corrupt stored hash instead of throwing', async () => {
    expect(await checker.check('not-a-hash', 'whatever')).toBe(false);
    expect(await checker.check('$argon2id$v=19$m=1,t=1,p=1$broken', 'whatever')).toBe(false);
  });
});
