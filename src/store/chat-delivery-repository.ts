import { keys } from './keys.js';
import { callLua } from './lua-commands.js';
import type { Redis } from './redis.js';

export type DeliveryPartState = 'claimed' | 'sending' | 'sent';

/** The claims that make each part of a delivery to a chat happen once. */
export interface ChatDeliveryRepository {
  /** Claims one part of a delivery before it is sent (see lua/chat-delivery-claim-1.lua). */
  claimPart(deliveryId: string, part: number, keepMs: number): Promise<DeliveryPartState>;
  markPartSent(deliveryId: string, part: number): Promise<void>;
  /** The provider refused the part outright: it was not sent and may be tried again. */
  releasePart(deliveryId: string, part: number): Promise<void>;
}

export function createChatDeliveryRepository(redis: Redis): ChatDeliveryRepository {
  return {
    async claimPart(deliveryId, part, keepMs) {
      return (await callLua(
        redis,
        'chatDeliveryClaim',
        keys.chatDelivery(deliveryId),
        part,
        keepMs,
      )) as DeliveryPartState;
    },
    async markPartSent(deliveryId, part) {
      await redis.hset(keys.chatDelivery(deliveryId), String(part), 'sent');
    },
    async releasePart(deliveryId, part) {
      await redis.hdel(keys.chatDelivery(deliveryId), String(part));
    },
  };
}
