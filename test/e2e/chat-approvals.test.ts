import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScriptApprovals } from '../../src/chat/script-approvals.js';
import { createFileMirror } from '../../src/scripts/file-mirror.js';
import { createScriptService } from '../../src/scripts/script-service.js';
import { createChatApprovalRepository } from '../../src/store/chat-approval-repository.js';
import type { RunningWorkers } from '../../src/workers/start.js';
import { createTestApp, startTestWorkers, type TestApp } from '../support/app.js';
import { adminToken, authHeader, TEST_ADMIN } from '../support/auth.js';
import { startFakeModel, type FakeModel } from '../support/fake-model.js';
import { isolatedEnv, mockProvider, opencodeBin } from '../support/opencode.js';
import {
  startTelegramStandIn,
  type SentMessage,
  type TelegramStandIn,
} from '../support/telegram-stand-in.js';
import { memoryTrail } from '../support/trail.js';

/**
 * Script reviews from chat, end to end: a script that becomes pending (the model's script_exec
 * through the real OpenCode and `steward mcp`, or an API change) reaches the administrator's
 * Telegram chat with its source or diff and buttons; a tap approves exactly the hash shown.
 */
const ADA = { id: 501, first_name: 'Ada' };
const EVE = { id: 777, first_name: 'Eve' };
const CODE = 'def main():\n    return {"sum": 2 + 3}\n';

describe('script reviews in the administrator chat', { timeout: 180_000 }, () => {
  let fake: FakeModel;
  let api: TelegramStandIn;
  let t: TestApp;
  let workers: RunningWorkers;
  let auth: Record<string, string>;
  const engineHome = mkdtempSync(path.join(os.tmpdir(), 'steward-e2e-reviews-'));

  /** The newest review request for `script` in Ada's chat. */
  const requestFor = (script: string) =>
    api.waitFor(
      () =>
        [...api.messages]
          .reverse()
          .find((m) => m.chat_id === String(ADA.id) && m.text.startsWith(`Review ${script}`)),
      60_000,
    );
  const textOf = (m: SentMessage) => m.edits.at(-1) ?? m.text;
  const tap = (m: SentMessage, label: 'Approve' | 'Reject', who = ADA) => {
    const button = m.buttons.find((b) => b.text === label);
    if (!button) throw new Error(`no ${label} button on ${JSON.stringify(m)}`);
    return api.userTaps(who, m, button.callback_data);
  };

  beforeAll(async () => {
    fake = await startFakeModel();
    api = await startTelegramStandIn();
    t = await createTestApp(
      {
        'engine.command': [opencodeBin],
        'engine.config': {
          provider: mockProvider(fake.baseURL),
          model: 'mock/echo',
          small_model: 'mock/echo',
        },
        'engine.env': isolatedEnv(engineHome),
        'log.level': 'error',
        'chat.telegram': { token_secret: 'TELEGRAM_TOKEN', allow: [ADA.id], api_root: api.apiRoot },
        'chat.approvals': { provider: 'telegram', channel_id: String(ADA.id) },
      },
      'e2e-reviews',
      undefined,
      { superviseEngine: true },
    );
    await t.services.secrets.set('TELEGRAM_TOKEN', api.token);
    auth = authHeader(await adminToken(t));
    await t.services.engine.start();
    await t.services.engine.hub.whenConnected(30_000);
    workers = await startTestWorkers(t);
    t.services.gateway?.start();
    await api.waitFor(() => api.calls.some((c) => c.method === 'getUpdates'), 30_000);
  }, 180_000);

  afterAll(async () => {
    await t?.services.gateway?.stop();
    await workers?.close();
    await t?.close();
    await api?.close();
    await fake?.close();
    rmSync(engineHome, { recursive: true, force: true });
  });

  it("sends the AI's script_exec for review; only the admin's tap approves it, and it then runs", async () => {
    fake.enqueue({
      kind: 'tool',
      tool: 'steward_script_exec',
      args: { code: CODE },
      after: (result) => `Exec said: ${result}`,
    });
    api.userWrites(ADA, 'add two and three');
    const request = await requestFor('exec-');
    expect(request.text).toMatch(
      /\(new\)\nhash [0-9a-f]{12} · by mcp \(written by the AI\)\nsecrets: none/,
    );
    expect(request.text).toContain('return {"sum": 2 + 3}');
    const name = /^Review (exec-\w+\.star)/.exec(request.text)?.[1] ?? '';

    expect(await tap(request, 'Approve', EVE)).toBe(
      'Only the administrator can decide this review.',
    );
    expect((await t.services.scripts.get(name))?.status).toBe('pending');

    expect(await tap(request, 'Approve')).toBe('Approved.');
    const record = await t.services.scripts.get(name);
    expect(record).toMatchObject({ status: 'approved', approved_by: TEST_ADMIN.username });
    expect(textOf(request)).toMatch(/Approved by admin in telegram\.$/);
    expect(request.buttons).toEqual([]);

    fake.enqueue({
      kind: 'tool',
      tool: 'steward_script_exec',
      args: { code: CODE },
      after: (result) => `Ran: ${result}`,
    });
    api.userWrites(ADA, 'again please');
    await api.waitFor(
      () => api.chatTexts(ADA.id).some((x) => x.startsWith('Ran: ') && x.includes('"sum":5')),
      60_000,
    );
  });

  it('approves nothing when the script changed after the request was shown', async () => {
    await t.services.scripts.create('moving.star', 'def main():\n    return 1\n', 'admin');
    const first = await requestFor('moving.star');
    // A change the reviews never heard of (another process without chat, say).
    const quiet = createScriptService({
      store: t.services.scripts.store,
      mirror: createFileMirror(t.ctx.config.paths.scripts),
      log: t.ctx.log,
      signer: t.services.signer,
      trail: memoryTrail(),
    });
    await quiet.update('moving.star', 'def main():\n    return 2\n', 'someone');
    expect(await tap(first, 'Approve')).toBe('The script changed: nothing was approved.');
    expect((await t.services.scripts.get('moving.star'))?.status).toBe('pending');
    expect(textOf(first)).toMatch(/nothing was approved/);

    // A change through the service supersedes the open request with a new one showing the diff.
    await t.services.scripts.update('moving.star', 'def main():\n    return 3\n', 'admin');
    const second = await requestFor('moving.star');
    expect(second.message_id).not.toBe(first.message_id);
    // Never approved yet: the request shows the whole source, not a diff.
    expect(second.text).toContain('(new)');
    expect(second.text).toContain('    return 3');
    expect(await tap(second, 'Approve')).toBe('Approved.');
    expect((await t.services.scripts.get('moving.star'))?.status).toBe('approved');

    await t.services.scripts.update('moving.star', 'def main():\n    return 4\n', 'admin');
    const third = await requestFor('moving.star');
    expect(third.text).toContain('(changed since its approval)');
    expect(third.text).toContain('-    return 3\n+    return 4');
    const stale = third.buttons.find((b) => b.text === 'Approve')?.callback_data ?? '';
    await t.services.scripts.update('moving.star', 'def main():\n    return 5\n', 'admin');
    await api.waitFor(() => textOf(third).includes('Superseded'));
    expect(await api.userTaps(ADA, third, stale)).toBe('This review is closed (superseded).');
    expect((await t.services.scripts.get('moving.star'))?.status).toBe('pending');
  });

  it('rejects with the reason the admin replies, and shows decisions made elsewhere', async () => {
    await t.services.scripts.create('doubtful.star', 'def main():\n    return "hmm"\n', 'admin');
    const request = await requestFor('doubtful.star');
    expect(await tap(request, 'Reject')).toBe('Reply with the reason.');
    const prompt = await api.waitFor(() =>
      api.messages.find(
        (m) => m.forceReply && m.text.includes('reason for rejecting doubtful.star'),
      ),
    );
    api.userWrites(ADA, 'returns nonsense', prompt.message_id);
    await api.waitFor(() =>
      textOf(request).includes('Rejected by admin in telegram: returns nonsense'),
    );
    expect(await t.services.scripts.get('doubtful.star')).toMatchObject({
      status: 'rejected',
      reason: 'returns nonsense',
    });

    await t.services.scripts.create('elsewhere.star', 'def main():\n    return 0\n', 'admin');
    const other = await requestFor('elsewhere.star');
    const hash = (await t.services.scripts.get('elsewhere.star'))?.hash;
    const approved = await t.app.inject({
      method: 'POST',
      url: '/api/scripts/elsewhere.star/approve',
      headers: auth,
      payload: { hash },
    });
    expect(approved.statusCode).toBe(200);
    await api.waitFor(() => textOf(other).includes('Approved by admin outside the chat.'));
  });

  it('closes requests past their time and says so', async () => {
    await t.services.scripts.create('late.star', 'def main():\n    return 0\n', 'admin');
    const request = await requestFor('late.star');
    // Kept from before the expiry: the edit removes the buttons, but an old client may still tap.
    const approve = request.buttons.find((b) => b.text === 'Approve')?.callback_data ?? '';
    const later = createScriptApprovals({
      config: { provider: 'telegram', channel_id: String(ADA.id), ttl: 24 * 3600 * 1000 },
      provider: (name) => t.services.chat.sender(name),
      repo: createChatApprovalRepository(t.ctx.redis),
      scripts: t.services.scripts,
      adminName: async () => 'admin',
      secretEgress: 'bound',
      redact: (x) => x,
      log: t.ctx.log,
      now: () => Date.now() + 25 * 3600 * 1000,
    });
    expect(await later.expire()).toBeGreaterThanOrEqual(1);
    expect(textOf(request)).toMatch(/Expired without a decision/);
    expect(request.buttons).toEqual([]);
    expect(await api.userTaps(ADA, request, approve)).toBe('This review is closed (expired).');
    expect((await t.services.scripts.get('late.star'))?.status).toBe('pending');
  });
});
