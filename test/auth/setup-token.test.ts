import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSetupToken, isLocalRequest } from '../../src/auth/setup-token.js';

describe('setup token', () => {
  it('is created once with mode 0600, kept across calls, compared exactly, and discarded', async () => {
    const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'steward-setup-')), 'data');
    const first = createSetupToken(dir);
    expect(await first.matches('anything')).toBe(false);
    const token = await first.ensure();
    expect(statSync(first.file).mode & 0o777).toBe(0o600);
    expect(readFileSync(first.file, 'utf8').trim()).toBe(token);
    // Another process of the deployment (or a restart) reads the same token.
    expect(await createSetupToken(dir).ensure()).toBe(token);
    expect(await first.matches(token)).toBe(true);
    expect(await first.matches(token.slice(1))).toBe(false);
    expect(await first.matches(undefined)).toBe(false);
    await first.discard();
    expect(await first.matches(token)).toBe(false);
  });

  it('counts only unforwarded loopback connections as local', () => {
    expect(isLocalRequest('127.0.0.1', {})).toBe(true);
    expect(isLocalRequest('127.8.9.10', {})).toBe(true);
    expect(isLocalRequest('::1', {})).toBe(true);
    expect(isLocalRequest('::ffff:127.0.0.1', {})).toBe(true);
    expect(isLocalRequest('10.0.0.5', {})).toBe(false);
    expect(isLocalRequest('::ffff:192.168.1.2', {})).toBe(false);
    expect(isLocalRequest(undefined, {})).toBe(false);
    expect(isLocalRequest('127.0.0.1', { 'x-forwarded-for': '198.51.100.1' })).toBe(false);
    expect(isLocalRequest('127.0.0.1', { forwarded: 'for=198.51.100.1' })).toBe(false);
  });
});
