import { describe, expect, it } from 'vitest';
import {
  characterCount,
  passwordProblem,
  usernameProblem,
} from '../../src/auth/password-policy.js';

describe('password policy', () => {
  it('accepts 16 characters of a single category', () => {
    expect(passwordProblem('a'.repeat(16))).toBeNull();
  });

  it('refuses 15 characters with only two categories, naming what is missing', () => {
    const problem = passwordProblem('abcdefghijklmn1');
    expect(problem).toMatch(/3 of the 4 categories/);
    expect(problem).toMatch(/missing: uppercase, symbol/);
  });

  it('accepts 12 characters with three categories', () => {
    expect(passwordProblem('Abcdefghijk1')).toBeNull(); // upper, lower, digit
    expect(passwordProblem('abcdefghij1!')).toBeNull(); // lower, digit, symbol
    expect(passwordProblem('ABCDEFGHIJ-x')).toBeNull(); // upper, symbol, lower
  });

  it('refuses fewer than 12 characters whatever the categories', () => {
    expect(passwordProblem('Abcdefg1!#x')).toMatch(/at least 16 characters, or at least 12/);
  });

  it('counts characters (code points), not UTF-8 bytes or UTF-16 units', () => {
    // 11 characters but 22+ bytes: still too short.
    const elevenAccented = 'ÉéÉéÉéÉéÉé1';
    expect(Buffer.byteLength(elevenAccented)).toBeGreaterThan(16);
    expect(characterCount(elevenAccented)).toBe(11);
    expect(passwordProblem(elevenAccented)).toMatch(/it has 11 characters/);
    // 15 emoji: 60 bytes, 30 UTF-16 units, but 15 characters of one category.
    const emoji = '🔑'.repeat(15);
    expect(emoji.length).toBe(30);
    expect(passwordProblem(emoji)).toMatch(/15 characters/);
    // 16 emoji pass on length alone.
    expect(passwordProblem('🔑'.repeat(16))).toBeNull();
    // 12 characters with upper, lower (non-ASCII) and symbol pass.
    expect(passwordProblem('ÄÖÜäöüßéèê€€')).toBeNull();
  });

  it('refuses absurdly long passwords', () => {
    expect(passwordProblem('a'.repeat(1025))).toMatch(/at most 1024/);
  });
});

describe('username rule', () => {
  it('accepts ordinary and non-ASCII names', () => {
    expect(usernameProblem('admin')).toBeNull();
    expect(usernameProblem('Zoë Müller')).toBeNull();
    expect(usernameProblem('x'.repeat(64))).toBeNull();
  });

  it('refuses empty, too long, control characters and edge whitespace', () => {
    expect(usernameProblem('')).toMatch(/1 to 64/);
    expect(usernameProblem('x'.repeat(65))).toMatch(/1 to 64/);
    expect(usernameProblem('ad\nmin')).toMatch(/control/);
    expect(usernameProblem('ad\u0000min')).toMatch(/control/);
    expect(usernameProblem('ad\u202emin')).toMatch(/control/);
    expect(usernameProblem(' admin')).toMatch(/whitespace/);
  });
});
