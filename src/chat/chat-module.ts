import type { Config } from '../config/schema.js';
import type { Logger } from '../log/logger.js';
import type { ChatRepository } from '../store/chat-repository.js';
import { createChatAccess, type ChatAccess } from './chat-access.js';
import { createChatOutbox, type ChatOutbox } from './chat-outbox.js';
import type { ChatProvider, ChatProviderName } from './provider.js';
import {
  createScriptApprovals,
  type ScriptApprovals,
  type ScriptApprovalsDeps,
} from './script-approvals.js';

export interface ChatModuleDeps {
  config: Config['chat'];
  /** Provider tokens are Steward secrets, read when a provider is built. */
  getSecret: (name: string) => Promise<string | null>;
  repo: ChatRepository;
  redact: (text: string) => string;
  /** Per-provider send budget shared by every process (`chat_send` and deliveries). */
  takeSend?: (provider: ChatProviderName) => Promise<boolean>;
  /** What script reviews from chat need (`chat.approvals`). */
  reviews?: Pick<ScriptApprovalsDeps, 'scripts' | 'adminName'>;
  log: Logger;
}

export interface ChatModule {
  /** Providers with a config section, whether or not their token is set yet. */
  configured: readonly ChatProviderName[];
  access: ChatAccess;
  outbox: ChatOutbox;
  /** Builds a fresh provider (for the gateway's receiving); null when not configured. */
  build(name: ChatProviderName): Promise<ChatProvider | null>;
  /** This process's provider for sending (cached, rebuilt when its token changes). */
  sender(name: ChatProviderName): Promise<ChatProvider | null>;
  /** Script reviews from chat, when `chat.approvals` names a configured provider. */
  approvals: ScriptApprovals | null;
}

/**
 * The chat providers of this process, built from the config with their tokens taken from the
 * secrets. Sending uses one cached instance per provider, rebuilt when its token changes; the
 * gateway builds its own each time it starts receiving.
 */
export function createChatModule(deps: ChatModuleDeps): ChatModule {
  const { config, log } = deps;
  const configured: ChatProviderName[] = config.telegram ? ['telegram'] : [];
  const access = createChatAccess({
    repo: deps.repo,
    allow: { telegram: config.telegram?.allow ?? [] },
  });

  async function token(name: string, provider: ChatProviderName): Promise<string | null> {
    const value = await deps.getSecret(name);
    if (!value)
      log.warn({ provider, secret: name }, `chat provider ${provider}: secret ${name} is not set`);
    return value;
  }

  async function build(name: ChatProviderName): Promise<ChatProvider | null> {
    const telegram = config.telegram;
    if (name !== 'telegram' || !telegram) return null;
    const value = await token(telegram.token_secret, name);
    if (!value) return null;
    // grammY loads on first use: processes without a chat provider never pay for it.
    const { createTelegramProvider } = await import('./telegram-provider.js');
    return createTelegramProvider({
      token: value,
      apiRoot: telegram.api_root,
      redact: deps.redact,
      log: log.child({ component: 'telegram' }),
    });
  }

  const cache = new Map<
    ChatProviderName,
    { secret: string; provider: Promise<ChatProvider | null> }
  >();
  async function forSending(name: ChatProviderName): Promise<ChatProvider | null> {
    const secretName = name === 'telegram' ? config.telegram?.token_secret : undefined;
    if (!secretName) return null;
    const value = await deps.getSecret(secretName);
    if (!value) return null;
    const hit = cache.get(name);
    if (hit?.secret === value) return hit.provider;
    const provider = build(name);
    cache.set(name, { secret: value, provider });
    return provider;
  }

  const outbox: ChatOutbox = createChatOutbox({
    provider: forSending,
    configured,
    access,
    claims: deps.repo,
    redact: deps.redact,
    ...(deps.takeSend ? { takeSend: deps.takeSend } : {}),
  });

  const reviews = config.approvals;
  const approvals =
    reviews && deps.reviews && configured.includes(reviews.provider)
      ? createScriptApprovals({
          config: reviews,
          provider: forSending,
          repo: deps.repo,
          ...deps.reviews,
          redact: deps.redact,
          log: log.child({ component: 'reviews' }),
        })
      : null;
  if (reviews && !approvals) {
    log.warn(
      { provider: reviews.provider },
      'chat.approvals names a chat provider that is not configured',
    );
  }

  return { configured, access, outbox, build, sender: forSending, approvals };
}
