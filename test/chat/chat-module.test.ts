import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatModule } from '../../src/chat/chat-module.js';
import { createLogger } from '../../src/log/logger.js';
import { createScriptEvents } from '../../src/scripts/script-events.js';
import { createChatApprovalRepository } from '../../src/store/chat-approval-repository.js';
import { createChatDeliveryRepository } from '../../src/store/chat-delivery-repository.js';
import { createChatIdentityRepository } from '../../src/store/chat-identity-repository.js';
import { createChatPairingRepository } from '../../src/store/chat-pairing-repository.js';
import { createChatUpdateClaims } from '../../src/store/chat-update-repository.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { startTelegramStandIn, type TelegramStandIn } from '../support/telegram-stand-in.js';

/**
 * The chat module of a process: providers built from the config with their tokens read from the
 * secrets, one cached sender per provider, and script reviews following the script service's
 * events (a version that becomes pending is announced without the service knowing the chat).
 */
const ADA = '501';

describe('chat module', { timeout: 60_000 }, () => {
  let api: TelegramStandIn;
  let t: TestApp;

  beforeAll(async () => {
    api = await startTelegramStandIn();
    t = await createTestApp(
      {
        'chat.telegram': { token_secret: 'TELEGRAM_TOKEN', allow: [ADA], api_root: api.apiRoot },
        'chat.approvals': { provider: 'telegram', channel_id: ADA },
      },
      'chat-module',
    );
  });
  afterAll(async () => {
    await t?.close();
    await api?.close();
  });

  const stores = () => ({
    pairings: createChatPairingRepository(t.ctx.redis),
    identities: createChatIdentityRepository(t.ctx.redis),
    deliveries: createChatDeliveryRepository(t.ctx.redis),
    approvals: createChatApprovalRepository(t.ctx.redis),
    updates: createChatUpdateClaims(t.ctx.redis),
  });

  it('builds no provider while its token secret is unset, then one sender per token', async () => {
    const chat = t.services.chat;
    expect(chat.configured).toEqual(['telegram']);
    expect(await chat.sender('telegram')).toBeNull();
    expect(await chat.build('slack')).toBeNull();

    await t.services.secrets.set('TELEGRAM_TOKEN', api.token);
    const sender = await chat.sender('telegram');
    expect(sender).not.toBeNull();
    expect(await chat.sender('telegram')).toBe(sender);
    // A new token is a new provider: the old one would send as the old bot.
    await t.services.secrets.set('TELEGRAM_TOKEN', `${api.token}x`);
    expect(await chat.sender('telegram')).not.toBe(sender);
    await t.services.secrets.set('TELEGRAM_TOKEN', api.token);
  });

  it('announces a version that becomes pending, through the script events', async () => {
    await t.services.secrets.set('TELEGRAM_TOKEN', api.token);
    await t.services.scripts.create('announced.star', 'x = 1\n', 'mcp');
    const review = await api.waitFor(() =>
      api.messages.find((m) => m.chat_id === ADA && m.text.includes('announced.star')),
    );
    expect(review.buttons.map((b) => b.text)).toEqual(['Approve', 'Reject']);
  });

  it('has no reviews when chat.approvals names a provider that is not configured', async () => {
    const events = createScriptEvents();
    const chat = createChatModule({
      config: {
        session_scope: 'active',
        telegram: t.ctx.config.chat.telegram,
        approvals: { provider: 'slack', channel_id: 'C1', ttl: 1000 },
      },
      getSecret: (name) => t.services.secrets.get(name),
      stores: stores(),
      redact: (text) => text,
      reviews: {
        scripts: t.services.scripts,
        adminName: async () => 'admin',
        secretEgress: 'bound',
        events,
      },
      log: createLogger('silent'),
    });
    expect(chat.approvals).toBeNull();
    expect(chat.configured).toEqual(['telegram']);
  });
});
