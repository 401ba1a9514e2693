import { describe, expect, it } from 'vitest';
import { splitMessage } from '../../src/chat/split-message.js';

describe('splitMessage', () => {
  it('keeps a short text whole', () => {
    expect(splitMessage('hello', 10)).toEqual(['hello']);
    expect(splitMessage('', 10)).toEqual(['']);
  });

  it('cuts at the last line break, then the last space, then hard', () => {
    expect(splitMessage('line one\nline two', 12)).toEqual(['line one', 'line two']);
    expect(splitMessage('alpha beta gamma', 11)).toEqual(['alpha beta', 'gamma']);
    expect(splitMessage('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
  });

  it('passes over an early line break for a later space', () => {
    expect(splitMessage('head\nalpha beta gamma delta', 20)).toEqual([
      'head\nalpha beta',
      'gamma delta',
    ]);
  });

  it('cuts hard rather than leave a heading alone before a long unbroken text', () => {
    expect(splitMessage(`name\n${'x'.repeat(30)}`, 20)).toEqual([
      `name\n${'x'.repeat(15)}`,
      'x'.repeat(15),
    ]);
  });

  it('never cuts a surrogate pair in two', () => {
    const pieces = splitMessage('ab😀cd', 3);
    expect(pieces).toEqual(['ab', '😀c', 'd']);
    expect(pieces.join('')).toBe('ab😀cd');
  });

  it('splits 10,000 characters of lines into three Telegram messages, none over 4096', () => {
    const text = Array.from({ length: 200 }, (_, i) => `line ${i} `.padEnd(49, 'x')).join('\n');
    expect(text.length).toBe(9999);
    const pieces = splitMessage(text, 4096);
    expect(pieces).toHaveLength(3);
    expect(pieces.every((p) => p.length <= 4096)).toBe(true);
    expect(pieces.join('\n')).toBe(text);
  });
});
