// A Telegram Bot API stand-in on loopback for benches: what Steward's grammY bot calls to start
// (getMe, deleteWebhook, getUpdates long polling that never has an update) and sendMessage,
// whose every call is recorded. The tests' richer one is test/support/telegram-stand-in.ts.
import { createServer } from 'node:http';

/**
 * `sendMs`: how long sendMessage takes to answer. The message counts as sent when it arrives (as
 * Telegram shows it at once); a sender killed while it waits never learns that it went out.
 */
export async function startTelegramStandIn({
  token = '7000000001:AAbench-stand-in-Zx9',
  sendMs = 0,
} = {}) {
  const messages = [];
  let nextMessage = 100;
  const polls = new Set();
  const reply = (res, result) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: true, result }));
  };
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const text = Buffer.concat(chunks).toString('utf8');
    const body = text ? JSON.parse(text) : {};
    const [, bot, method] = /^\/bot([^/]+)\/(\w+)/.exec(req.url ?? '') ?? [];
    if (bot !== token) {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: false, error_code: 401, description: 'Unauthorized' }));
      return;
    }
    switch (method) {
      case 'getMe':
        return reply(res, {
          id: 7000000001,
          is_bot: true,
          first_name: 'Steward',
          username: 'bench_bot',
        });
      case 'getUpdates': {
        // Long polling with nothing to say: answer empty after the timeout (at most 5 s), or
        // when the client goes away.
        const wait = Math.min(Number(body.timeout ?? 0), 5) * 1000;
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, wait);
          polls.add(timer);
          res.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
        });
        if (!res.destroyed) reply(res, []);
        return;
      }
      case 'sendMessage': {
        const message = {
          message_id: nextMessage++,
          chat: { id: Number(body.chat_id), type: 'private' },
          date: Math.floor(Date.now() / 1000),
          text: body.text,
        };
        messages.push({ chat_id: String(body.chat_id), text: String(body.text), at: Date.now() });
        if (sendMs > 0) await new Promise((r) => setTimeout(r, sendMs));
        if (!res.destroyed) reply(res, message);
        return;
      }
      default:
        return reply(res, true);
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    token,
    apiRoot: `http://127.0.0.1:${port}`,
    messages,
    close: () =>
      new Promise((resolve) => {
        for (const timer of polls) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
