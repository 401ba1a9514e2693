import type { EngineClient } from '../engine/client.js';
import { converseOnce, type TextRedactor } from '../engine/conversation.js';
import type { EventHub } from '../engine/event-hub.js';
import type { ModelsService } from '../engine/models-service.js';
import type { SessionsService } from '../engine/sessions-service.js';
import { isAppError } from '../errors/catalogue.js';
import type { Logger } from '../log/logger.js';
import type { ChatSessionRepository } from '../store/chat-session-repository.js';
import { PAIRING_TTL_MS, type ChatAccess } from './chat-access.js';
import type { ChatProvider, InboundAction, InboundMessage } from './provider.js';
import { createReplyStream } from './reply-stream.js';
import type { ScriptApprovals } from './script-approvals.js';

export type SessionScope = 'active' | 'per_chat';

export interface MessageRouterDeps {
  access: Pick<ChatAccess, 'allowed' | 'requestPairing' | 'mayAnswerStranger'>;
  /** The engine session of each chat (`per_chat`). */
  chatSessions: ChatSessionRepository;
  engine: {
    client: Pick<EngineClient, 'promptAsync' | 'getSession'>;
    hub: Pick<EventHub, 'subscribe' | 'whenConnected'>;
    sessions: Pick<SessionsService, 'create' | 'activeSessionId'>;
    models: Pick<ModelsService, 'list'>;
  };
  createRedactor: () => TextRedactor;
  /** Script reviews from chat (taps, rejection reasons), when configured. */
  approvals?: Pick<ScriptApprovals, 'act' | 'reason'> | undefined;
  scope: SessionScope;
  editIntervalMs?: number | undefined;
  /** A reply not finished by then ends with a line saying so. */
  replyTimeoutMs?: number | undefined;
  log: Logger;
}

export interface MessageRouter {
  /** A message someone wrote; never rejects (a failure is logged and answered). */
  receive(provider: ChatProvider, message: InboundMessage): Promise<void>;
  /** A button tap. */
  tap(action: InboundAction): Promise<void>;
}

const NO_REPLY_IN_TIME = 'Engine error: no complete reply in time';

/** The short line a person gets when their message could not be handled. */
function notHandled(err: unknown): string {
  const why = isAppError(err) && err.status >= 500 ? err.message : 'it could not be handled';
  return `Engine error: ${why}. Your message was not sent to the assistant; try again shortly.`;
}

/**
 * The chat gateway's routing: who wrote (deny by default, pairing codes for strangers), which
 * engine session their chat talks to (`chat.session_scope`), the commands `/new` and `/status`,
 * review replies and taps; every other message is a turn of its session, one at a time per
 * session, its reply streamed back.
 */
export function createMessageRouter(deps: MessageRouterDeps): MessageRouter {
  const { log, engine } = deps;
  // One turn at a time per engine session: two turns at once would interleave their events.
  const turns = new Map<string, Promise<void>>();

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
      editIntervalMs: deps.editIntervalMs ?? 1000,
      onError: (err) => log.warn({ err, provider: provider.name }, 'chat reply not delivered'),
    });
    const end = await converseOnce(
      { client: engine.client, hub: engine.hub, createRedactor: deps.createRedactor },
      sessionId,
      message.text,
      { timeoutMs: deps.replyTimeoutMs ?? 5 * 60_000, listener: (event) => reply.push(event) },
    );
    if (end === 'timeout') reply.fail(NO_REPLY_IN_TIME);
    await reply.finished;
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

  /**
   * A message that could not be handled (the engine timed out or failed finding or making its
   * session, the store was away) is answered with a short line, so the person knows to try again.
   */
  async function receive(provider: ChatProvider, message: InboundMessage): Promise<void> {
    await handle(provider, message).catch(async (err: unknown) => {
      log.warn({ err, provider: provider.name }, 'chat message not handled');
      await provider
        .send(message.chatId, notHandled(err))
        .catch((sendErr: unknown) =>
          log.warn({ err: sendErr, provider: provider.name }, 'chat error answer not sent'),
        );
    });
  }

  return {
    receive: async (provider, message) => receive(provider, message),
    tap,
  };
}
