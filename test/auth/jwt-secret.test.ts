import { statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadJwtSecret } from '../../src/auth/jwt-secret.js';

describe('signing secret', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'steward-jwt-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('is generated once into <data>/jwt_secret with mode 0600 and 256 bits', async () => {
    const dataDir = path.join(dir, 'data');
    const first = await loadJwtSecret({ dataDir });
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    const file = path.join(dataDir, 'jwt_secret');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((await readFile(file, 'utf8')).trim()).toBe(first);
    expect(await loadJwtSecret({ dataDir })).toBe(first);
  });

  it('is the same for processes starting together on one data dir', async () => {
    const dataDir = path.join(dir, 'race');
    const secrets = await Promise.all(Array.from({ length: 8 }, () => loadJwtSecret({ dataDir })));
    expect(new Set(secrets).size).toBe(1);
  });

  it('is overridden by the configured secret (ADMIN_JWT_SECRET)', async () => {
    const configured = 'c'.repeat(40);
    expect(await loadJwtSecret({ configured, dataDir: path.join(dir, 'data') })).toBe(configured);
  });

  it('refuses a truncated secret file', async () => {
    const dataDir = path.join(dir, 'short');
    await loadJwtSecret({ dataDir });
    await writeFile(path.join(dataDir, 'jwt_secret'), 'short\n');
    await expect(loadJwtSecret({ dataDir })).rejects.toThrow(/fewer than 32/);
  });

  it('trims the file, and an empty configured secret falls back to it', async () => {
    const dataDir = path.join(dir, 'trimmed');
    await mkdir(dataDir, { recursive: true });
    const value = 'f'.repeat(40);
    await writeFile(path.join(dataDir, 'jwt_secret'), `  ${value}\n\n`);
    expect(await loadJwtSecret({ configured: '', dataDir })).toBe(value);
  });
});
