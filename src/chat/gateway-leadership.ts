import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { ChatProviderName } from '../contracts/provider-names.js';
import type { Logger } from '../log/logger.js';
import type { ChatLeaseRepository } from '../store/chat-lease-repository.js';
import type { MessageRouter } from './message-router.js';
import type { ChatProvider, ProviderStatus } from './provider.js';
import type { ScriptApprovals } from './script-approvals.js';

export interface GatewayLeadershipDeps {
  /** The configured providers, by name. */
  configured: readonly ChatProviderName[];
  /** Builds a provider with its token read from the secrets; null while the token is not set. */
  build: (name: ChatProviderName) => Promise<ChatProvider | null>;
  /** How often the leader tries again to start a provider that is missing its token. */
  retryEveryMs?: number | undefined;
  lease: ChatLeaseRepository;
  /** Where what the providers receive goes. */
  router: Pick<MessageRouter, 'receive' | 'tap'>;
  /** Review requests past their time are closed by the leader. */
  approvals?: Pick<ScriptApprovals, 'expire'> | undefined;
  /** How often the leader closes expired review requests. */
  expireEveryMs?: number | undefined;
  /** The leader lease: held this long past each renewal, renewed (or sought) every `renewMs`. */
  leaseMs?: number | undefined;
  renewMs?: number | undefined;
  log: Logger;
}

export interface GatewayLeadership {
  /** Seeks the leader lease and, while this process holds it, receives from every provider. */
  start(): void;
  stop(): Promise<void>;
  isLeader(): boolean;
  statuses(): Record<string, ProviderStatus>;
}

/**
 * The chat gateway's leadership: one leader cluster-wide receives messages (Telegram allows one
 * poller per bot) and supervises the providers. The lease lives `leaseMs` (8 s) and is renewed
 * every `renewMs` (2 s), so a standby takes over within 10 s of a leader's death (plus its own
 * start), and a leader whose event loop lags up to 6 s keeps it; a leader that cannot renew
 * stops receiving at once, so two pollers never overlap.
 */
export function createGatewayLeadership(deps: GatewayLeadershipDeps): GatewayLeadership {
  const { log } = deps;
  const leaseMs = deps.leaseMs ?? 8_000;
  const renewMs = deps.renewMs ?? 2_000;
  // Names the process, so an operator (or a test) can tell which one leads.
  const owner = `${hostname()}:${process.pid}:${randomUUID()}`;
  let providers: ChatProvider[] = [];
  let leader = false;
  let started = false;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let ticking: Promise<void> = Promise.resolve();
  let nextExpiry = 0;

  let nextAttempt = 0;

  /**
   * Starts the configured providers not running yet: all of them on becoming leader, then any
   * whose token was missing or whose start failed, every `retryEveryMs` (a token stored after
   * start-up is picked up without a restart).
   */
  async function startMissing(): Promise<void> {
    nextAttempt = Date.now() + (deps.retryEveryMs ?? 10_000);
    const running = new Set(providers.map((p) => p.name));
    for (const name of deps.configured.filter((n) => !running.has(n))) {
      const provider = await deps.build(name).catch((err: unknown) => {
        log.error({ err, provider: name }, 'chat provider not built');
        return null;
      });
      if (!provider) continue;
      try {
        await provider.start({
          message: (message) => void deps.router.receive(provider, message),
          action: (action) => void deps.router.tap(action),
        });
        providers = [...providers, provider];
        log.info({ provider: name }, 'chat provider receiving');
      } catch (err) {
        log.error({ err, provider: name }, 'chat provider did not start');
      }
    }
  }

  async function becomeLeader() {
    leader = true;
    await startMissing();
    log.info({ providers: providers.map((p) => p.name) }, 'chat gateway leading');
  }

  async function stepDown(why: string) {
    const running = providers;
    providers = [];
    leader = false;
    await Promise.allSettled(running.map((p) => p.stop()));
    log.info({ why }, 'chat gateway standing by');
  }

  async function tick() {
    let held = false;
    try {
      held = await deps.lease.holdLease(owner, leaseMs);
    } catch (err) {
      log.warn({ err }, 'chat lease not renewed');
    }
    if (stopped) return;
    if (held && leader && deps.approvals && Date.now() >= nextExpiry) {
      nextExpiry = Date.now() + (deps.expireEveryMs ?? 30_000);
      await deps.approvals
        .expire()
        .catch((err: unknown) => log.warn({ err }, 'review expiry failed'));
    }
    if (held && !leader) await becomeLeader();
    else if (!held && leader) await stepDown('lease lost');
    else if (leader) {
      // A provider whose receiving died (a network failure its library gave up on) starts again.
      const failed = providers.filter((p) => p.status().state === 'error');
      if (failed.length > 0) {
        providers = providers.filter((p) => !failed.includes(p));
        await Promise.allSettled(failed.map((p) => p.stop()));
        nextAttempt = 0;
      }
      if (providers.length < deps.configured.length && Date.now() >= nextAttempt) {
        await startMissing();
      }
    }
  }

  const loop = () => {
    ticking = ticking
      .then(tick)
      .catch((err: unknown) => log.error({ err }, 'chat gateway tick failed'));
    void ticking.finally(() => {
      if (!stopped) timer = setTimeout(loop, renewMs);
    });
  };

  return {
    start() {
      if (started || stopped) return;
      started = true;
      loop();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await ticking;
      if (leader) await stepDown('shutdown');
      await deps.lease.releaseLease(owner).catch(() => {});
    },
    isLeader: () => leader,
    statuses: () => Object.fromEntries(providers.map((p) => [p.name, p.status()])),
  };
}
