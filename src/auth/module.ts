import type { LoadedConfig } from '../config/load.js';
import type { Logger } from '../log/logger.js';
import type { AuditLog } from '../runtime/audit-log.js';
import type { Redis } from '../store/redis.js';
import { createAdminRepository } from '../store/admin-repository.js';
import { createSessionRepository } from '../store/session-repository.js';
import { createAuthService, type AuthService } from './auth-service.js';
import { loadJwtSecret } from './jwt-secret.js';
import { createRateLimit, type RateLimit } from './rate-limits.js';
import { createSetupToken, type SetupToken } from './setup-token.js';
import { createAccessCheck, type AccessCheck } from './access-check.js';
import { createTokenService, type TokenService } from './tokens.js';

/** Everything authentication needs, built once per process from the context. */
export interface AuthModule {
  service: AuthService;
  tokens: TokenService;
  /** The signing secret, for @fastify/jwt (request verification). */
  secret: string;
  issuer: string;
  /** Needed by `POST /api/setup` from any address but loopback. */
  setupToken: SetupToken;
  /** Whether a verified access token's session still lives (logout ends it within seconds). */
  access: AccessCheck;
  limits: {
    /** `POST /api/auth/login`, per client IP. */
    login: RateLimit;
    /** Every other administration endpoint, per user (else per IP). */
    api: RateLimit;
  };
}

export interface AuthModuleDeps {
  config: Pick<LoadedConfig, 'admin' | 'paths'>;
  redis: Redis;
  log: Logger;
  trail: Pick<AuditLog, 'record'>;
}

export async function createAuthModule(deps: AuthModuleDeps): Promise<AuthModule> {
  const { config, redis, log, trail } = deps;
  const { jwt, rate_limit } = config.admin;
  const secret = await loadJwtSecret({ configured: jwt.secret, dataDir: config.paths.data });
  const tokens = createTokenService({
    secret,
    issuer: jwt.issuer,
    accessTtlMs: jwt.access_expiry,
    refreshTtlMs: jwt.refresh_expiry,
  });
  const sessions = createSessionRepository(redis, {
    ttlMs: tokens.refreshTtlMs,
    graceMs: jwt.refresh_grace,
  });
  return {
    access: createAccessCheck({ sessions, accessTtlMs: jwt.access_expiry }),
    service: createAuthService({
      admins: createAdminRepository(redis),
      sessions,
      log,
      tokens,
      trail,
    }),
    tokens,
    secret,
    issuer: jwt.issuer,
    setupToken: createSetupToken(config.paths.data),
    limits: {
      login: createRateLimit(redis, 'login', rate_limit.login_per_minute),
      api: createRateLimit(redis, 'api', rate_limit.api_per_minute),
    },
  };
}
