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
import type { AuditChannel } from '../runtime/audit-entry.js';
import type { AuditLog } from '../runtime/audit-log.js';
import { createAuthAudit } from './audit.js';
import { hashPassword, createPasswordChecker } from './passwords.js';
import { passwordProblem, usernameProblem } from './password-policy.js';
import { newTokenId, type RefreshIdentity, type SignedToken, type TokenService } from './tokens.js';

export interface AuthServiceDeps {
  admins: AdminRepository;
  /** Refresh-token sessions; their lifetime and grace are the repository's options. */
  sessions: SessionRepository;
  log: Logger;
  tokens: TokenService;
  /** The deployment's audit log: setup, logins, logouts and revocations are recorded there. */
  trail: Pick<AuditLog, 'record'>;
}

export interface SetupInput {
  username: string;
  password: string;
  confirm_password: string;
}

/** Who is asking, for the audit log only. */
export interface ClientInfo {
  ip: string;
  /** Through the web UI or a plain API client. */
  channel?: AuditChannel;
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
  const { admins, sessions, tokens } = deps;
  const audit = createAuthAudit(deps.log, deps.trail);
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
        await audit('setup.rejected', { ...client, reason: 'setup_completed' }, 'warn');
        throw setupCompleted();
      }
      await audit('setup.completed', { ...client, username: input.username });
    },

    async login(username, password, client) {
      const admin = await admins.get();
      // Compare digests so the comparison's timing says nothing about the stored name.
      const known = admin !== null && timingSafeEqual(digest(admin.username), digest(username));
      const ok = await passwords.check(known ? admin.passwordHash : undefined, password);
      if (!ok || !admin) {
        // The attempted name is not logged: people type passwords into the username field.
        await audit('auth.login.failed', { ...client }, 'warn');
        throw new InvalidCredentialsError();
      }
      const sid = randomBytes(16).toString('base64url');
      const jti = newTokenId();
      await sessions.create(sid, admin.username, jti);
      await audit('auth.login.succeeded', { ...client, username: admin.username, sid });
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
        await audit(
          'auth.refresh.reused',
          { ...client, username: presented.username, sid: presented.sid },
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
        await audit('auth.logout', { ...client, sid, revoked: existed });
      }
    },
  };
}

const setupCompleted = () => new SetupCompletedError();
