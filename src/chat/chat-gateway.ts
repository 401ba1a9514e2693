import type { ChatProviderName } from '../contracts/provider-names.js';
import type { Logger } from '../log/logger.js';
import type { ChatLeaseRepository } from '../store/chat-lease-repository.js';
import type { ChatSessionRepository } from '../store/chat-session-repository.js';
import { createGatewayLeadership, type GatewayLeadership } from './gateway-leadership.js';
import { createMessageRouter, type MessageRouterDeps } from './message-router.js';
import type { ChatProvider } from './provider.js';
import type { ScriptApprovals } from './script-approvals.js';

export type { SessionScope } from './message-router.js';

export interface ChatGatewayDeps extends Omit<MessageRouterDeps, 'approvals' | 'chatSessions'> {
  /** The configured providers, by name. */
  configured: readonly ChatProviderName[];
  /** Builds a provider with its token read from the secrets; null while the token is not set. */
  build: (name: ChatProviderName) => Promise<ChatProvider | null>;
  /** How often the leader tries again to start a provider that is missing its token. */
  retryEveryMs?: number;
  lease: ChatLeaseRepository;
  /** The engine session of each chat (`per_chat`). */
  chatSessions: ChatSessionRepository;
  /** Script reviews from chat (taps, rejection reasons, expiry), when configured. */
  approvals?: Pick<ScriptApprovals, 'act' | 'reason' | 'expire'> | undefined;
  /** How often the leader closes expired review requests. */
  expireEveryMs?: number;
  /** The leader lease: held this long past each renewal, renewed (or sought) every `renewMs`. */
  leaseMs?: number;
  renewMs?: number;
  log: Logger;
}

export type ChatGateway = GatewayLeadership;

/**
 * The chat gateway: leadership (`gateway-leadership.ts`: the lease, the providers' supervision)
 * hands what the providers receive to routing (`message-router.ts`: who, which session,
 * commands, turns).
 */
export function createChatGateway(deps: ChatGatewayDeps): ChatGateway {
  const router = createMessageRouter(deps);
  return createGatewayLeadership({ ...deps, router });
}
