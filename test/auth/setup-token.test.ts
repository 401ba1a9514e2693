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
    const host = { host: '127.0.0.1:8080' };
    expect(isLocalRequest('127.0.0.1', host)).toBe(true);
    expect(isLocalRequest('127.8.9.10', host)).toBe(true);
    expect(isLocalRequest('::1', host)).toBe(true);
    expect(isLocalRequest('::ffff:127.0.0.1', host)).toBe(true);
    expect(isLocalRequest('10.0.0.5', host)).toBe(false);
    expect(isLocalRequest('::ffff:192.168.1.2', host)).toBe(false);
    expect(isLocalRequest(undefined, host)).toBe(false);
    for (const header of ['x-forwarded-for', 'forwarded', 'x-real-ip', 'x-forwarded-host', 'via']) {
      expect(isLocalRequest('127.0.0.1', { ...host, [header]: '198.51.100.1' }), header).toBe(
        false,
      );
    }
  });

  it('is local only when Host and any Origin name this machine too (DNS rebinding, relays)', () => {
    for (const name of ['localhost', 'localhost:8080', '127.0.0.1', '[::1]:8080', 'LOCALHOST']) {
      expect(isLocalRequest('127.0.0.1', { host: name }), name).toBe(true);
    }
    // A rebound name resolves to 127.0.0.1, but the browser still sends its own Host.
    for (const name of ['steward.attacker.example', 'evil.example:8080', '127.0.0.1.nip.io', '']) {
      expect(isLocalRequest('127.0.0.1', { host: name }), name).toBe(false);
    }
    expect(isLocalRequest('127.0.0.1', {})).toBe(false);
    const host = { host: 'localhost:8080' };
    expect(isLocalRequest('::1', { ...host, origin: 'http://localhost:8080' })).toBe(true);
    expect(isLocalRequest('::1', { ...host, origin: 'http://[::1]:5173' })).toBe(true);
    for (const origin of ['http://evil.example', 'null', 'file://', 'not a url']) {
      expect(isLocalRequest('127.0.0.1', { ...host, origin }), origin).toBe(false);
    }
  });
});
