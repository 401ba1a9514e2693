import { createHmac } from 'node:crypto';

/**
 * The secret Telegram sends with every webhook call (`X-Telegram-Bot-Api-Secret-Token`),
 * derived from the bot token, so every API process can check it without sharing more state.
 * Its own file: the API checks it without loading grammY.
 */
export function telegramWebhookSecret(token: string): string {
  return createHmac('sha256', token).update('steward telegram webhook').digest('base64url');
}
