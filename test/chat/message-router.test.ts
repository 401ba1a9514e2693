import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatAccess } from '../../src/chat/chat-access.js';
import { createMessageRouter } from '../../src/chat/message-router.js';
import { createTelegramProvider } from '../../src/chat/telegram-provider.js';
import { createEngineClient } from '../../src/engine/client.js';
import { createEventHub } from '../../src/engine/event-hub.js';
import { createModelsService } from '../../src/engine/models-service.js';
import { createSessionsService } from '../../src/engine/sessions-service.js';
import { createLogger } from '../../src/log/logger.js';
import { createRedactor } from '../../src/secrets/redactor.js';
import { createStreamRedactor } from '../../src/secrets/stream-redactor.js';
import { createChatIdentityRepository } from '../../src/store/chat-identity-repository.js';
import { createChatPairingRepository } from '../../src/store/chat-pairing-repository.js';
import { createChatSessionRepository } from '../../src/store/chat-session-repository.js';
import { createEnginePreferencesRepository } from '../../src/store/engine-preferences-repository.js';
import { startBlackHole } from '../support/black-hole.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';
import { startTelegramStandIn, type TelegramStandIn } from '../support/telegram-stand-in.js';

/**
 * Routing against an engine that never answers (a loopback server that accepts and stays
 * silent): the engine times out finding or making the chat's session, and the person is told
 * so instead of their message vanishing.
 */
const ADA = { id: 812, first_name: 'Ada' };

describe('message router with an engine that times out', { timeout: 30_000 }, () => {
  const prefix = uniquePrefix('message-router');
  const redis = storeRedis(prefix);
  const log = createLogger('silent');
  let api: TelegramStandIn;
  let engineHole: { url: string; close(): Promise<void> };

  beforeAll(async () => {
    api = await startTelegramStandIn();
    engineHole = await startBlackHole();
  });
  afterAll(async () => {
    await api?.close();
    await engineHole?.close();
    redis.disconnect();
    await dropPrefix(prefix);
  });

  it('answers the person with a short error line when the engine times out', async () => {
    const client = createEngineClient({
      url: engineHole.url.replace(/^redis:/, 'http:'),
      log,
      requestTimeoutMs: 300,
    });
    const preferences = createEnginePreferencesRepository(redis);
    const router = createMessageRouter({
      access: createChatAccess({
        pairings: createChatPairingRepository(redis),
        identities: createChatIdentityRepository(redis),
        allow: { telegram: [String(ADA.id)] },
      }),
      chatSessions: createChatSessionRepository(redis),
      engine: {
        client,
        hub: createEventHub({ client, log }),
        sessions: createSessionsService({ client, preferences, log }),
        models: createModelsService({ client, preferences }),
      },
      createRedactor: () => createStreamRedactor(createRedactor([])),
      scope: 'active',
      log,
    });
    const provider = createTelegramProvider({
      token: api.token,
      apiRoot: api.apiRoot,
      redact: (t) => t,
      log,
    });
    await router.receive(provider, {
      provider: 'telegram',
      chatId: String(ADA.id),
      userId: String(ADA.id),
      userName: ADA.first_name,
      text: 'what is on today?',
    });
    const [answer] = api.chatTexts(ADA.id);
    expect(answer).toMatch(
      /^Engine error: .+\. Your message was not sent to the assistant; try again shortly\.$/,
    );
  });
});
