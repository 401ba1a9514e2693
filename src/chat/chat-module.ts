import type { Config } from '../config/schema.js';
import type { Logger } from '../log/logger.js';
import type { ScriptEvents } from '../scripts/script-events.js';
import type { ChatApprovalRepository } from '../store/chat-approval-repository.js';
import type { ChatDeliveryRepository } from '../store/chat-delivery-repository.js';
import type { ChatIdentityRepository } from '../store/chat-identity-repository.js';
import type { ChatPairingRepository } from '../store/chat-pairing-repository.js';
import type { ChatUpdateClaims, ChatUpdateReader } from '../store/chat-update-repository.js';
import { createChatAccess, type ChatAccess } from './chat-access.js';
import { createChatOutbox, type ChatOutbox } from './chat-outbox.js';
import type { ChatProvider } from './provider.js';
import type { ChatProviderName } from '../contracts/provider-names.js';
import {
  createScriptApprovals,
  type ScriptApprovals,
  type ScriptApprovalsDeps,
} from './script-approvals.js';
import type { AuditLog } from '../runtime/audit-log.js';

/** How long a handled update id is remembered: Telegram redelivers for at most 24 h. */
const UPDATE_CLAIM_MS = 24 * 3600 * 1000;

/** The chat wing's state in Redis, one repository per entity. */
export interface ChatStores {
  pairings: ChatPairingRepository;
  identities: ChatIdentityRepository;
  deliveries: ChatDeliveryRepository;
  approvals: ChatApprovalRepository;
  updates: ChatUpdateClaims;
}

export interface ChatModuleDeps {
  config: Config['chat'];
  /** Provider tokens are Steward secrets, read when a provider is built. */
  getSecret: (name: string) => Promise<string | null>;
  stores: ChatStores;
  redact: (text: string) => string;
  /** Per-provider send budget shared by every process (`chat_send` and deliveries). */
  takeSend?: (provider: ChatProviderName) => Promise<boolean>;
  /** A blocking reader of webhook updates on a connection of its own (webhook mode). */
  openUpdateReader?: () => ChatUpdateReader;
  /** What script reviews from chat need (`chat.approvals`). */
  reviews?: Pick<ScriptApprovalsDeps, 'scripts' | 'adminName' | 'secretEgress'> & {
    /** The script service's events: each version that becomes pending is announced. */
    events: Pick<ScriptEvents, 'subscribe'>;
  };
  /** The audit log: pairing requests are recorded there. */
  trail?: Pick<AuditLog, 'record'>;
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
  const configured: ChatProviderName[] = [
    ...(config.telegram ? (['telegram'] as const) : []),
    ...(config.slack ? (['slack'] as const) : []),
    ...(config.discord ? (['discord'] as const) : []),
  ];
  const access = createChatAccess({
    pairings: deps.stores.pairings,
    identities: deps.stores.identities,
    allow: {
      telegram: config.telegram?.allow ?? [],
      slack: config.slack?.allow ?? [],
      discord: config.discord?.allow ?? [],
    },
    channels: {
      telegram: config.telegram?.groups ?? [],
      slack: config.slack?.channels ?? [],
      discord: config.discord?.channels ?? [],
    },
    ...(deps.trail ? { trail: deps.trail } : {}),
  });

  // Said once per secret: the gateway asks again every ten seconds until the token is stored.
  const unset = new Set<string>();
  async function token(name: string, provider: ChatProviderName): Promise<string | null> {
    const value = await deps.getSecret(name);
    if (!value && !unset.has(name)) {
      unset.add(name);
      log.warn(
        { provider, secret: name },
        `chat provider ${provider}: secret ${name} is not set; it starts once the secret is stored`,
      );
    }
    if (value) unset.delete(name);
    return value;
  }

  /** The provider's token values, or null while one is not set. */
  async function tokens(name: ChatProviderName): Promise<string[] | null> {
    const names =
      name === 'telegram' && config.telegram
        ? [config.telegram.token_secret]
        : name === 'slack' && config.slack
          ? [config.slack.bot_token_secret, config.slack.app_token_secret]
          : name === 'discord' && config.discord
            ? [config.discord.token_secret]
            : [];
    if (names.length === 0) return null;
    const values = await Promise.all(names.map((n) => token(n, name)));
    return values.every((v): v is string => Boolean(v)) ? values : null;
  }

  /** `send`: for sending only (no webhook reader, which holds a connection of its own). */
  async function build(
    name: ChatProviderName,
    purpose: 'receive' | 'send' = 'receive',
  ): Promise<ChatProvider | null> {
    const values = await tokens(name);
    if (!values) return null;
    // Provider libraries load on first use: processes without that provider never pay for them.
    if (name === 'telegram' && config.telegram) {
      const { createTelegramProvider } = await import('./telegram-provider.js');
      const url = config.telegram.webhook_url;
      const reader =
        url && purpose === 'receive' && deps.openUpdateReader ? deps.openUpdateReader() : null;
      const token = values[0] as string;
      // Update ids count per bot: the bot's id (the token's public part) scopes the claims.
      const botId = token.split(':')[0] ?? '';
      return createTelegramProvider({
        token,
        apiRoot: config.telegram.api_root,
        groups: config.telegram.groups,
        claimUpdate: (updateId) =>
          deps.stores.updates.claimUpdate('telegram', `${botId}:${updateId}`, UPDATE_CLAIM_MS),
        redact: deps.redact,
        log: log.child({ component: 'telegram' }),
        ...(url && reader
          ? {
              webhook: {
                url,
                next: () => reader.take('telegram', 5),
                close: () => reader.close(),
              },
            }
          : {}),
      });
    }
    if (name === 'slack' && config.slack) {
      const { createSlackProvider } = await import('./slack-provider.js');
      return createSlackProvider({
        botToken: values[0] as string,
        appToken: values[1] as string,
        apiUrl: config.slack.api_url,
        channels: config.slack.channels,
        redact: deps.redact,
        log: log.child({ component: 'slack' }),
      });
    }
    if (name === 'discord' && config.discord) {
      const { createDiscordProvider } = await import('./discord-provider.js');
      return createDiscordProvider({
        token: values[0] as string,
        apiRoot: config.discord.api_root,
        channels: config.discord.channels,
        users: config.discord.allow,
        redact: deps.redact,
        log: log.child({ component: 'discord' }),
      });
    }
    return null;
  }

  const cache = new Map<
    ChatProviderName,
    { secret: string; provider: Promise<ChatProvider | null> }
  >();
  async function forSending(name: ChatProviderName): Promise<ChatProvider | null> {
    const values = await tokens(name);
    if (!values) return null;
    const value = values.join('\n');
    const hit = cache.get(name);
    if (hit?.secret === value) return hit.provider;
    const provider = build(name, 'send');
    cache.set(name, { secret: value, provider });
    return provider;
  }

  const outbox: ChatOutbox = createChatOutbox({
    provider: forSending,
    configured,
    access,
    claims: deps.stores.deliveries,
    redact: deps.redact,
    ...(deps.takeSend ? { takeSend: deps.takeSend } : {}),
  });

  const reviews = config.approvals;
  const approvals =
    reviews && deps.reviews && configured.includes(reviews.provider)
      ? createScriptApprovals({
          config: reviews,
          provider: forSending,
          repo: deps.stores.approvals,
          scripts: deps.reviews.scripts,
          adminName: deps.reviews.adminName,
          secretEgress: deps.reviews.secretEgress,
          redact: deps.redact,
          log: log.child({ component: 'reviews' }),
        })
      : null;
  if (approvals && deps.reviews) {
    deps.reviews.events.subscribe((change) => approvals.onScriptChange(change));
  }
  if (reviews && !approvals) {
    log.warn(
      { provider: reviews.provider },
      'chat.approvals names a chat provider that is not configured',
    );
  }

  return { configured, access, outbox, build, sender: forSending, approvals };
}
