import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  InvalidCredentialsError,
  InvalidRefreshTokenError,
  PasswordInvalidError,
  PasswordMismatchError,
  SetupCompletedError,
} from '../errors/auth-errors.js';
import { BadRequestError } from '../errors/request-errors.js';
import type { Logger } from '../log/logger.js';
import type { AdminRepository } from '../store/admin-repository.js';
import type { SessionRepository } from '../store/session-repository.js';
import { audit } from './audit.js';
import { hashPassword, createPasswordChecker } from './passwords.js';
import { passwordProblem, usernameProblem } from './password-policy.js';
import { newTokenId, type RefreshIdentity, type SignedToken, type TokenService } from './tokens.js';

export interface AuthServiceDeps {
  admins: AdminRepository;
  /** Refresh-token sessions; their lifetime and grace are the repository's options. */
  sessions: SessionRepository;
  log: Logger;
  tokens: TokenService;
}

export interface SetupInput {
  username: string;
  password: string;
  confirm_password: string;
}

/** Who is asking, for audit lines only. */
export interface ClientInfo {
  ip: string;
}

export interface RefreshResult {
  username: string;
  access: SignedToken;
  refresh: SignedToken;
}

export interface AuthService {
  admins: AdminRepository;
  setupRequired(): Promise<boolean>;
  /** Throws `password_mismatch`, `password_invalid`, `invalid_request` or `setup_completed`. */
  setup(input: SetupInput, client: ClientInfo): Promise<void>;
  /** Returns a refresh token for a new session; throws `invalid_credentials`. */
  login(username: string, password: string, client: ClientInfo): Promise<SignedToken>;
  /** Redeems a verified refresh token; throws `invalid_refresh_token`. */
  refresh(presented: RefreshIdentity, client: ClientInfo): Promise<RefreshResult>;
  /** Revokes sessions by id; unknown ids are ignored. */
  logout(sids: Iterable<string>, client: ClientInfo): Promise<void>;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

export function createAuthService(deps: AuthServiceDeps): AuthService {
  const { admins, sessions, log, tokens } = deps;
  const passwords = createPasswordChecker();

  return {
    admins,
    setupRequired: async () => !(await admins.exists()),

    async setup(input, client) {
      if (await admins.exists()) throw setupCompleted();
      const userProblem = usernameProblem(input.username);
      if (userProblem) throw new BadRequestError(userProblem);
      if (input.password !== input.confirm_password) {
        throw new PasswordMismatchError();
      }
      const problem = passwordProblem(input.password);
      if (problem) throw new PasswordInvalidError(problem);
      const passwordHash = await hashPassword(input.password);
      if (!(await admins.create({ username: input.username, passwordHash }))) {
        audit(log, 'setup.rejected', { ip: client.ip, reason: 'setup_completed' }, 'warn');
        throw setupCompleted();
      }
      audit(log, 'setup.completed', { username: input.username, ip: client.ip });
    },

    async login(username, password, client) {
      const admin = await admins.get();
      // Compare digests so the comparison's timing says nothing about the stored name.
      const known = admin !== null && timingSafeEqual(digest(admin.username), digest(username));
      const ok = await passwords.check(known ? admin.passwordHash : undefined, password);
      if (!ok || !admin) {
        // The attempted name is not logged: people type passwords into the username field.
        audit(log, 'auth.login.failed', { ip: client.ip }, 'warn');
        throw new InvalidCredentialsError();
      }
      const sid = randomBytes(16).toString('base64url');
      const jti = newTokenId();
      await sessions.create(sid, admin.username, jti);
      audit(log, 'auth.login.succeeded', { username: admin.username, sid, ip: client.ip });
      return tokens.signRefresh({ username: admin.username, role: 'admin', sid, jti });
    },

    async refresh(presented, client) {
      const outcome = await sessions.redeem(
        presented.sid,
        presented.username,
        presented.jti,
        newTokenId(),
      );
      if (outcome.kind === 'reused') {
        audit(
          log,
          'auth.refresh.reused',
          { username: presented.username, sid: presented.sid, ip: client.ip },
          'warn',
        );
      }
      if (outcome.kind !== 'rotated' && outcome.kind !== 'grace') {
        throw new InvalidRefreshTokenError();
      }
      const identity = { username: presented.username, role: 'admin' as const, sid: presented.sid };
      return {
        username: presented.username,
        access: tokens.signAccess(identity),
        refresh: tokens.signRefresh({ ...identity, jti: outcome.jti }),
      };
    },

    async logout(sids, client) {
      for (const sid of new Set(sids)) {
        const existed = await sessions.revoke(sid);
        audit(log, 'auth.logout', { sid, revoked: existed, ip: client.ip });
      }
    },
  };
}

const setupCompleted = () => new SetupCompletedError();
