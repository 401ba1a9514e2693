import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScriptApprovals, type ScriptApprovals } from '../../src/chat/script-approvals.js';
import { MAX_REVIEW_PARTS } from '../../src/chat/review-request.js';
import type { ScriptRecord } from '../../src/contracts/script-record.js';
import { createChatApprovalRepository } from '../../src/store/chat-approval-repository.js';
import { createTestApp, type TestApp } from '../support/app.js';
import {
  startTelegramStandIn,
  type SentMessage,
  type TelegramStandIn,
} from '../support/telegram-stand-in.js';

/**
 * Script reviews in the administrator's Telegram chat (the stand-in), with a clock the test
 * moves: a long text arrives whole before the buttons, one too long for chat cannot be approved
 * from it, a tap after the request's time approves nothing, and the secrets line says where a
 * secret without destinations may go.
 */
const ADA = '501';
const TTL = 1000;

describe('script reviews from chat', { timeout: 60_000 }, () => {
  let api: TelegramStandIn;
  let t: TestApp;
  let clock = Date.now();

  beforeAll(async () => {
    api = await startTelegramStandIn();
    t = await createTestApp(
      { 'chat.telegram': { token_secret: 'TELEGRAM_TOKEN', allow: [ADA], api_root: api.apiRoot } },
      'chat-reviews',
    );
    await t.services.secrets.set('TELEGRAM_TOKEN', api.token);
  });
  afterAll(async () => {
    await t?.close();
    await api?.close();
  });

  function reviews(secretEgress: 'bound' | 'any' = 'bound'): ScriptApprovals {
    return createScriptApprovals({
      config: {
        provider: 'telegram',
        channel_id: ADA,
        ttl: TTL,
        ui_url: 'https://steward.example.com/',
      },
      provider: (name) => t.services.chat.sender(name),
      repo: createChatApprovalRepository(t.ctx.redis),
      scripts: t.services.scripts,
      adminName: async () => 'admin',
      secretEgress,
      redact: (x) => x,
      log: t.ctx.log,
      now: () => clock,
    });
  }

  /** Stores `source` as a new pending script and has `approvals` announce it. */
  async function announce(approvals: ScriptApprovals, name: string, source: string) {
    const before = api.messages.length;
    const record: ScriptRecord = await t.services.scripts.create(name, source, 'admin');
    await approvals.onScriptChange({ kind: 'pending', record });
    return api.messages.slice(before).filter((m) => m.chat_id === ADA);
  }

  async function tap(approvals: ScriptApprovals, m: SentMessage, data: string): Promise<string> {
    let answer = '';
    await approvals.act({
      provider: 'telegram',
      chatId: m.chat_id,
      userId: ADA,
      messageId: String(m.message_id),
      data,
      answer: async (text) => {
        answer = text;
      },
    });
    return answer;
  }
  const data = (m: SentMessage | undefined, label: string) =>
    m?.buttons.find((b) => b.text === label)?.callback_data ?? '';
  const status = async (name: string) => (await t.services.scripts.get(name))?.status;

  it('sends a long script whole, in parts before the buttons, and the tap approves it', async () => {
    clock = Date.now();
    const approvals = reviews();
    const lines = Array.from({ length: 300 }, (_, i) => `    x${i} = "${'v'.repeat(20)}${i}"`);
    const source = `def main():\n${lines.join('\n')}\n    return x299\n`;
    expect(source.length).toBeGreaterThan(9000);
    const sent = await announce(approvals, 'long.star', source);
    expect(sent.length).toBeGreaterThanOrEqual(3);
    expect(sent.every((m) => m.text.length <= 4096 - 300)).toBe(true);
    // Only the last part has buttons; every line of the source is in some part.
    expect(sent.slice(0, -1).every((m) => m.buttons.length === 0)).toBe(true);
    expect(sent.at(-1)?.buttons.map((b) => b.text)).toEqual(['Approve', 'Reject']);
    expect(sent[0]?.text).toMatch(/^Review long\.star \(new\)/);
    expect(sent[1]?.text).toMatch(new RegExp(`^\\(2/${sent.length}\\)\\n`));
    const shown = sent.map((m) => m.text).join('\n');
    for (const line of source.split('\n')) expect(shown).toContain(line.trim());
    expect(shown).not.toMatch(/more characters/);

    expect(await tap(approvals, sent.at(-1)!, data(sent.at(-1), 'Approve'))).toBe('Approved.');
    expect(await status('long.star')).toBe('approved');
  });

  it('offers no Approve for a script too long for chat, links the web UI, and refuses a forged tap', async () => {
    clock = Date.now();
    const approvals = reviews();
    const lines = Array.from({ length: 1500 }, (_, i) => `    y${i} = "${'w'.repeat(20)}${i}"`);
    const source = `def main():\n${lines.join('\n')}\n    return 1\n`;
    expect(source.length).toBeGreaterThan(MAX_REVIEW_PARTS * 4096);
    const sent = await announce(approvals, 'huge.star', source);
    expect(sent).toHaveLength(1);
    const [request] = sent;
    expect(request?.buttons.map((b) => b.text)).toEqual(['Reject']);
    expect(request?.text).toContain(
      'Review it in the web UI: https://steward.example.com/scripts/huge.star/review',
    );
    expect(request?.text).not.toContain('y0 = ');
    // The Reject button's id with the Approve verb, as a modified client could send it.
    const forged = data(request, 'Reject').replace(/^rj:/, 'ap:');
    expect(await tap(approvals, request!, forged)).toMatch(/could be shown here/);
    expect(await status('huge.star')).toBe('pending');
  });

  it('approves nothing on a tap after the request expired, before any sweep', async () => {
    clock = Date.now();
    const approvals = reviews();
    const [request] = await announce(approvals, 'late.star', 'def main():\n    return 0\n');
    const approve = data(request, 'Approve');
    clock += TTL + 600;
    expect(await tap(approvals, request!, approve)).toMatch(/expired/);
    expect(await status('late.star')).toBe('pending');
    await api.waitFor(() => request?.edits.at(-1)?.includes('Expired without a decision'));
    expect(request?.buttons).toEqual([]);
    // A second tap finds it closed.
    expect(await tap(approvals, request!, approve)).toBe('This review is closed (expired).');
  });

  it('rejects nothing when the reason comes after the request expired', async () => {
    clock = Date.now();
    const approvals = reviews();
    const [request] = await announce(approvals, 'slow.star', 'def main():\n    return 0\n');
    expect(await tap(approvals, request!, data(request, 'Reject'))).toBe('Reply with the reason.');
    const prompt = await api.waitFor(() =>
      api.messages.find((m) => m.forceReply && m.text.includes('rejecting slow.star')),
    );
    clock += TTL + 600;
    const handled = await approvals.reason({
      provider: 'telegram',
      chatId: ADA,
      userId: ADA,
      userName: 'Ada',
      text: 'too slow',
      replyTo: String(prompt.message_id),
    });
    expect(handled).toBe(true);
    expect(await t.services.scripts.get('slow.star')).toMatchObject({ status: 'pending' });
    expect(api.chatTexts(ADA).at(-1)).toMatch(/slow\.star: This review expired/);
  });

  it('says a secret declared without destinations goes nowhere under the default policy', async () => {
    clock = Date.now();
    const source =
      '# @secrets: TOKEN\n# @secrets: KEY -> api.example.com\ndef main():\n    return 0\n';
    const [bound] = await announce(reviews('bound'), 'keys.star', source);
    expect(bound?.text).toContain(
      'secrets: TOKEN (no destination declared: it cannot be sent anywhere unless scripts.secret_egress is "any"); KEY → api.example.com',
    );
    expect(bound?.text).not.toContain('(any destination)');

    const [any] = await announce(reviews('any'), 'keys-any.star', source);
    expect(any?.text).toContain(
      'TOKEN (no destination declared: scripts.secret_egress "any" lets it go to any host)',
    );
  });
});
