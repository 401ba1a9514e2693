/**
 * Chat providers: the chat platforms of DESIGN "Chat gateway", whose sections in `chat.*` turn
 * them on and whose names a pairing, an identity and a review request carry.
 */
export const chatProviderNames = ['telegram', 'discord', 'slack'] as const;
export type ChatProviderName = (typeof chatProviderNames)[number];

/**
 * Delivery targets: where a schedule's output may go (`output_target.provider`), a chat provider
 * or a plain webhook. The order is the API's (its enum in the OpenAPI document and its errors).
 */
export const targetProviderNames = [
  'discord',
  'telegram',
  'slack',
  'webhook',
] as const satisfies readonly (ChatProviderName | 'webhook')[];
export type TargetProviderName = (typeof targetProviderNames)[number];
