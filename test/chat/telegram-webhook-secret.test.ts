import { describe, expect, it } from 'vitest';
import { telegramWebhookSecret } from '../../src/chat/telegram-webhook-secret.js';

describe('Telegram webhook secret', () => {
  it('is the same for one token in every process, and differs per token', () => {
    const secret = telegramWebhookSecret('7000000001:AAE-token');
    expect(telegramWebhookSecret('7000000001:AAE-token')).toBe(secret);
    expect(telegramWebhookSecret('7000000001:AAE-other')).not.toBe(secret);
  });

  it('fits the header Telegram sends: 1-256 of A-Z, a-z, 0-9, _ and -', () => {
    expect(telegramWebhookSecret('7000000001:AAE-token')).toMatch(/^[A-Za-z0-9_-]{1,256}$/);
  });

  it('does not carry the token', () => {
    expect(telegramWebhookSecret('7000000001:AAE-token')).not.toContain('AAE-token');
  });
});
