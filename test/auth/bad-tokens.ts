import jwt from 'jsonwebtoken';
import type { TokenService } from '../../src/auth/tokens.js';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * Tokens every verifier must refuse, keyed by what is wrong with them. `asAccess` are refused
 * where an access token is expected, `asRefresh` where a refresh token is.
 */
export function badTokens(secret: string, issuer: string, tokens: TokenService) {
  const now = Math.floor(Date.now() / 1000);
  const claims = (typ: 'access' | 'refresh') => ({
    iss: issuer,
    sub: 'admin',
    typ,
    role: 'admin',
    sid: 'sid-1',
    jti: 'jti-1',
    iat: now,
    exp: now + 600,
  });
  const flip = (token: string) => {
    const [h, p, s] = token.split('.') as [string, string, string];
    const sig = Buffer.from(s, 'base64url');
    sig[0] = (sig[0] as number) ^ 0x01;
    return `${h}.${p}.${sig.toString('base64url')}`;
  };
  const variants = (typ: 'access' | 'refresh', other: string) => {
    const good = jwt.sign(claims(typ), secret, { algorithm: 'HS256' });
    const { typ: _typ, ...withoutTyp } = claims(typ);
    return {
      'flipped signature byte': flip(good),
      'alg none': `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims(typ))}.`,
      'alg HS512 with the right secret': jwt.sign(claims(typ), secret, { algorithm: 'HS512' }),
      'another secret': jwt.sign(claims(typ), 'y'.repeat(48), { algorithm: 'HS256' }),
      'wrong issuer': jwt.sign({ ...claims(typ), iss: 'someone-else' }, secret, {
        algorithm: 'HS256',
      }),
      expired: jwt.sign({ ...claims(typ), iat: now - 7200, exp: now - 3600 }, secret, {
        algorithm: 'HS256',
      }),
      'no typ claim': jwt.sign(withoutTyp, secret, { algorithm: 'HS256' }),
      'token of the other type': other,
      'payload swapped under a valid header': `${good.split('.')[0]}.${b64({ ...claims(typ), sub: 'mallory' })}.${good.split('.')[2]}`,
      'not a JWT': 'not-a-token',
    };
  };
  const identity = { username: 'admin', role: 'admin' as const, sid: 'sid-1' };
  return {
    asAccess: variants('access', tokens.signRefresh({ ...identity, jti: 'j' }).token),
    asRefresh: variants('refresh', tokens.signAccess(identity).token),
  };
}
