import { describe, expect, it } from 'vitest';
import { checkClaims, requiredClaims, TOKEN_ALGORITHM } from '../../src/auth/claims.js';

const now = Math.floor(Date.now() / 1000);
const claims = {
  iss: 'steward',
  sub: 'admin',
  typ: 'access',
  role: 'admin',
  sid: 'sid-1',
  jti: 'jti-1',
  iat: now,
  exp: now + 600,
};

describe('token claims', () => {
  it('signs and verifies with HS256 only', () => {
    expect(TOKEN_ALGORITHM).toBe('HS256');
  });

  it('requires every claim of the schema', () => {
    expect([...requiredClaims].sort()).toEqual(Object.keys(claims).sort());
  });

  it('accepts well-formed claims of our issuer and the expected type', () => {
    expect(checkClaims(claims, 'steward', 'access')).toEqual(claims);
    expect(checkClaims({ ...claims, typ: 'refresh' }, 'steward', 'refresh')).toMatchObject({
      typ: 'refresh',
    });
  });

  it('refuses another issuer and the other token type', () => {
    expect(checkClaims(claims, 'someone-else', 'access')).toBeNull();
    expect(checkClaims(claims, 'steward', 'refresh')).toBeNull();
  });

  it('refuses a missing claim, an empty subject, a role other than admin, or a non-object', () => {
    for (const name of requiredClaims) {
      const { [name]: _dropped, ...rest } = claims;
      expect(checkClaims(rest, 'steward', 'access'), name).toBeNull();
    }
    expect(checkClaims({ ...claims, sub: '' }, 'steward', 'access')).toBeNull();
    expect(checkClaims({ ...claims, sid: '' }, 'steward', 'access')).toBeNull();
    expect(checkClaims({ ...claims, role: 'user' }, 'steward', 'access')).toBeNull();
    expect(checkClaims({ ...claims, exp: now + 0.5 }, 'steward', 'access')).toBeNull();
    expect(checkClaims('a.b.c', 'steward', 'access')).toBeNull();
    expect(checkClaims(null, 'steward', 'access')).toBeNull();
  });
});
