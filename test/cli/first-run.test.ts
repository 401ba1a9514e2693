import { describe, expect, it } from 'vitest';
import { localUrl } from '../../src/cli/first-run.js';

describe('localUrl', () => {
  it('names a wildcard listener localhost, as the README and loopback setup do', () => {
    expect(localUrl('0.0.0.0', 8080)).toBe('http://localhost:8080/');
    expect(localUrl('::', 8080)).toBe('http://localhost:8080/');
    expect(localUrl('', 8080)).toBe('http://localhost:8080/');
  });

  it('keeps a bound address or name, brackets an IPv6 address, and shows the port taken', () => {
    expect(localUrl('127.0.0.1', 41234)).toBe('http://127.0.0.1:41234/');
    expect(localUrl('::1', 8080)).toBe('http://[::1]:8080/');
    expect(localUrl('steward.lan', 8080)).toBe('http://steward.lan:8080/');
  });
});
