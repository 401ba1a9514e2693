import { describe, expect, it } from 'vitest';
import type { TokenClaims } from '../../../src/auth/claims.js';
import { createVerifiedTokens } from '../../../src/api/plugins/verified-tokens.js';

const claims = (exp: number, jti = 'j'): TokenClaims => ({
  iss: 'steward',
  sub: 'admin',
  typ: 'access',
  role: 'admin',
  sid: 's',
  jti,
  iat: 0,
  exp,
});

describe('verified tokens', () => {
  it('answers for the exact header until the token expires, then forgets it', () => {
    const clock = { now: 10_000 };
    const tokens = createVerifiedTokens(() => clock.now);
    tokens.set('Bearer a', claims(20));
    expect(tokens.get('Bearer a')).toMatchObject({ exp: 20 });
    expect(tokens.get('Bearer a ')).toBeUndefined();
    expect(tokens.get('bearer a')).toBeUndefined();
    clock.now = 19_999;
    expect(tokens.get('Bearer a')).toBeDefined();
    clock.now = 20_000;
    expect(tokens.get('Bearer a')).toBeUndefined();
    clock.now = 0;
    expect(tokens.get('Bearer a')).toBeUndefined();
  });

  it('holds a bounded number of headers, dropping the oldest first', () => {
    const tokens = createVerifiedTokens(() => 0);
    for (let i = 0; i <= 1000; i++) tokens.set(`Bearer ${i}`, claims(1, String(i)));
    expect(tokens.get('Bearer 0')).toBeUndefined();
    expect(tokens.get('Bearer 1')).toMatchObject({ jti: '1' });
    expect(tokens.get('Bearer 1000')).toMatchObject({ jti: '1000' });
  });
});
