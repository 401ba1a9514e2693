import { describe, expect, it } from 'vitest';
import { createAccessCheck } from '../../src/auth/access-check.js';
import type { TokenClaims } from '../../src/auth/claims.js';

const claims = (over: Partial<TokenClaims> = {}): TokenClaims => ({
  iss: 'steward',
  sub: 'admin',
  typ: 'access',
  role: 'admin',
  sid: 's1',
  jti: 'j1',
  iat: 1_000,
  exp: 1_000 + 900,
  ...over,
});

describe('access check', () => {
  it("allows a token of a live session of the token's own user", async () => {
    const owners = new Map([['s1', 'admin']]);
    const check = createAccessCheck({
      sessions: { owner: async (sid) => owners.get(sid) ?? null },
      accessTtlMs: 900_000,
    });
    expect(await check.allows(claims())).toBe(true);
    expect(await check.allows(claims({ sid: 'gone' }))).toBe(false);
    expect(await check.allows(claims({ sub: 'mallory' }))).toBe(false);
  });

  it('refuses a token that lives longer than access_expiry', async () => {
    const check = createAccessCheck({
      sessions: { owner: async () => 'admin' },
      accessTtlMs: 900_000,
    });
    expect(await check.allows(claims({ exp: 1_000 + 901 }))).toBe(true);
    expect(await check.allows(claims({ exp: 1_000 + 3_600 }))).toBe(false);
  });

  it('reads a session at most once per cache period, then sees its logout', async () => {
    let reads = 0;
    let alive = true;
    const check = createAccessCheck({
      sessions: {
        owner: async () => {
          reads++;
          return alive ? 'admin' : null;
        },
      },
      accessTtlMs: 900_000,
      cacheMs: 50,
    });
    for (let i = 0; i < 5; i++) expect(await check.allows(claims())).toBe(true);
    expect(reads).toBe(1);
    alive = false;
    await new Promise((r) => setTimeout(r, 60));
    expect(await check.allows(claims())).toBe(false);
    expect(reads).toBe(2);
  });

  it('watches long-lived connections: one read per session per period, ends only the ended', async () => {
    const owners = new Map<string, string | null>([
      ['s1', 'admin'],
      ['s2', 'admin'],
    ]);
    let reads = 0;
    let down = false;
    const check = createAccessCheck({
      sessions: {
        owner: async (sid) => {
          reads++;
          if (down) throw new Error('connection refused');
          return owners.get(sid) ?? null;
        },
      },
      accessTtlMs: 900_000,
      watchMs: 20,
    });
    const ended: string[] = [];
    const stopA = check.watch(claims(), () => ended.push('a'));
    check.watch(claims(), () => ended.push('b'));
    check.watch(claims({ sid: 's2' }), () => ended.push('c'));
    await new Promise((r) => setTimeout(r, 70));
    expect(ended).toEqual([]);
    // Two sessions, so two reads a period, however many sockets share them.
    expect(reads % 2).toBe(0);

    // A Redis outage is not a logout.
    down = true;
    await new Promise((r) => setTimeout(r, 60));
    expect(ended).toEqual([]);
    down = false;

    stopA();
    owners.set('s1', null);
    await expect.poll(() => ended).toEqual(['b']);
    owners.set('s2', null);
    await expect.poll(() => ended).toEqual(['b', 'c']);
    // Each is told once, and a fresh read sees the logout at once.
    await new Promise((r) => setTimeout(r, 60));
    expect(ended).toEqual(['b', 'c']);
    expect(await check.allowsNow(claims())).toBe(false);
  });
});
