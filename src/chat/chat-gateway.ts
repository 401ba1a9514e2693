import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { EngineClient } from '../engine/client.js';
import type { EventHub } from '../engine/event-hub.js';
import type { ModelsService } from '../engine/models-service.js';
import type { SessionsService } from '../engine/sessions-service.js';
import { isAppError } from '../errors/catalogue.js';
import type { Logger } from '../log/logger.js';
import type { StreamRedactor } from '../secrets/stream-redactor.js';
import type { ChatLeaseRepository } from '../store/chat-lease-repository.js';
import type { ChatSessionRepository } from '../store/chat-session-repository.js';
import type { ChatAccess } from './chat-access.js';
import { PAIRING_TTL_MS } from './chat-access.js';
import type { ChatProvider, InboundAction, InboundMessage, ProviderStatus } from './provider.js';
import type { ChatProviderName } from '../contracts/provider-names.js';
import { createReplyStream } from './reply-stream.js';
import type { ScriptApprovals } from './script-approvals.js';

export type SessionScope = 'active' | 'per_chat';

export interface ChatGatewayDeps {
  /** The configured providers, by name. */
  configured: readonly ChatProviderName[];
  /** Builds a provider with its token read from the secrets; null while the token is not set. */
  build: (name: ChatProviderName) => Promise<ChatProvider | null>;
  /** How often the leader tries again to start a provider that is missing its token. */
  retryEveryMs?: number;
  access: Pick<ChatAccess, 'allowed' | 'requestPairing' | 'mayAnswerStranger'>;
  lease: ChatLeaseRepository;
  /** The engine session of each chat (`per_chat`). */
  chatSessions: ChatSessionRepository;
  engine: {
    client: Pick<EngineClient, 'promptAsync' | 'getSession'>;
    hub: Pick<EventHub, 'subscribe' | 'whenConnected'>;
    sessions: Pick<SessionsService, 'create' | 'activeSessionId'>;
    models: Pick<ModelsService, 'list'>;
  };
  createRedactor: () => StreamRedactor;
  /** Script reviews from chat (taps, rejection reasons, expiry), when configured. */
  approvals?: Pick<ScriptApprovals, 'act' | 'reason' | 'expire'> | undefined;
  /** How often the leader closes expired review requests. */
  expireEveryMs?: number;
  scope: SessionScope;
  log: Logger;
  /** The leader lease: held this long past each renewal, renewed (or sought) every `renewMs`. */
  leaseMs?: number;
  renewMs?: number;
  editIntervalMs?: number;
  /** A reply not finished by then ends with a line saying so. */
  replyTimeoutMs?: number;
}

export interface ChatGateway {
  /** Seeks the leader lease and, while this process holds it, receives from every provider. */
  start(): void;
  stop(): Promise<void>;
  isLeader(): boolean;
  statuses(): Record<string, ProviderStatus>;
}

/**
 * The chat gateway: one leader cluster-wide receives messages (Telegram allows one poller per
 * bot), checks who wrote, and hands each allowed message to its engine session, streaming the
 * reply back. The lease lives `leaseMs` (8 s) and is renewed every `renewMs` (2 s), so a
 * standby takes over within 10 s of a leader's death (plus its own start), and a leader whose
 * event loop lags up to 6 s keeps it; a leader that cannot renew stops receiving at once, so
 * two pollers never overlap.
 */
export function createChatGateway(deps: ChatGatewayDeps): ChatGateway {
  const { log, engine } = deps;
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
  // One turn at a time per engine session: two turns at once would interleave their events.
  const turns = new Map<string, Promise<void>>();

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
          message: (message) => void receive(provider, message),
          action: (action) => void tap(action),
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

  async function sessionFor(message: InboundMessage): Promise<string> {
    if (deps.scope === 'per_chat') {
      const known = await deps.chatSessions.sessionOf(message.provider, message.chatId);
      if (known) return known;
      return newSession(message);
    }
    return (await engine.sessions.activeSessionId()) ?? newSession(message);
  }

  async function newSession(message: InboundMessage): Promise<string> {
    if (deps.scope === 'per_chat') {
      const session = await engine.sessions.create({
        activate: false,
        title: `${message.provider} chat ${message.chatId}`,
      });
      await deps.chatSessions.setSessionOf(message.provider, message.chatId, session.id);
      return session.id;
    }
    return (await engine.sessions.create()).id;
  }

  async function status(message: InboundMessage): Promise<string> {
    const sessionId =
      deps.scope === 'per_chat'
        ? await deps.chatSessions.sessionOf(message.provider, message.chatId)
        : await engine.sessions.activeSessionId();
    const models = await engine.models.list().catch(() => null);
    const model = models?.default
      ? `${models.default.provider}/${models.default.model}`
      : 'the engine default';
    if (!sessionId) return `No session yet (a message starts one). Model: ${model}.`;
    const session = await engine.client.getSession(sessionId).catch(() => null);
    const title = session?.title ? ` "${session.title}"` : '';
    return `Session ${sessionId}${title} (scope ${deps.scope}). Model: ${model}.`;
  }

  async function converse(provider: ChatProvider, message: InboundMessage, sessionId: string) {
    const reply = createReplyStream({
      provider,
      chatId: message.chatId,
      redactor: deps.createRedactor(),
      editIntervalMs: deps.editIntervalMs ?? 1000,
      onError: (err) => log.warn({ err, provider: provider.name }, 'chat reply not delivered'),
    });
    const off = engine.hub.subscribe(sessionId, (event) => reply.push(event));
    const timeout = setTimeout(
      () => reply.fail('Engine error: no complete reply in time'),
      deps.replyTimeoutMs ?? 5 * 60_000,
    );
    try {
      // The reply's first pieces are lost if the prompt goes out before the stream is open.
      await engine.hub.whenConnected(5000);
      await engine.client.promptAsync(sessionId, message.text);
    } catch (err) {
      reply.fail(`Engine error: ${isAppError(err) ? err.message : 'the AI engine failed'}`);
    }
    await reply.finished;
    clearTimeout(timeout);
    off();
  }

  async function handle(provider: ChatProvider, message: InboundMessage): Promise<void> {
    if (!(await deps.access.allowed(message.provider, message.userId))) {
      const pairing = await deps.access.requestPairing(message);
      // At most once a minute per stranger, a new code or not: a code dropped to make room and
      // asked for again must not open a way to make the bot write without limit.
      if (!(await deps.access.mayAnswerStranger(message.provider, message.userId))) return;
      await provider.send(
        message.chatId,
        `This assistant is private. To talk to it, ask its administrator to approve pairing code ${pairing.code} (valid for ${PAIRING_TTL_MS / 60_000} minutes).`,
      );
      return;
    }
    if (deps.approvals && (await deps.approvals.reason(message))) return;
    const command = /^\/(\w+)(?:@\w+)?\s*$/.exec(message.text.trim())?.[1];
    if (command === 'new') {
      const id = await newSession(message);
      await provider.send(message.chatId, `New session ${id} started.`);
      return;
    }
    if (command === 'status') {
      await provider.send(message.chatId, await status(message));
      return;
    }
    const sessionId = await sessionFor(message);
    const previous = turns.get(sessionId) ?? Promise.resolve();
    const turn = previous.then(() => converse(provider, message, sessionId));
    turns.set(sessionId, turn);
    await turn.finally(() => {
      if (turns.get(sessionId) === turn) turns.delete(sessionId);
    });
  }

  async function tap(action: InboundAction): Promise<void> {
    try {
      if (!deps.approvals || !(await deps.approvals.act(action))) {
        await action.answer('This button is no longer in use.');
      }
    } catch (err) {
      log.warn({ err, provider: action.provider }, 'chat button tap not handled');
      await action.answer('That did not work; try again or use the web UI.').catch(() => {});
    }
  }

  function receive(provider: ChatProvider, message: InboundMessage): void {
    handle(provider, message).catch((err: unknown) =>
      log.warn({ err, provider: provider.name }, 'chat message not handled'),
    );
  }

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
