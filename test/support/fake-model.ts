import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer of the fake model. */
export type FakeReply =
  | {
      kind: 'text';
      text: string;
      chunks?: number;
      delayMs?: number;
      reasoning?: string;
      /**
       * Awaited before the last chunk is written: a test that must see the reply streaming holds
       * its end until the first part is shown, so a busy machine delivering the chunks in one
       * burst cannot make the whole reply arrive at once.
       */
      beforeLast?: () => Promise<unknown>;
    }
  | {
      kind: 'tool';
      tool: string;
      args: Record<string, unknown>;
      /** Text of the follow-up answer once the tool result arrives; default echoes the result. */
      after?: (toolResult: string) => string;
    }
  | { kind: 'error'; status: number; message?: string; type?: string };

export interface RecordedRequest {
  path: string;
  body: ChatRequest;
  /** Text of the last user message (empty when none). */
  userText: string;
  /** Names of the tools offered to the model. */
  tools: string[];
  /** True for OpenCode's own title-generation calls, which the fake answers by itself. */
  title: boolean;
}

interface ChatMessage {
  role: string;
  content?: unknown;
  tool_call_id?: string;
}

interface ChatRequest {
  model?: string;
  stream?: boolean;
  messages?: ChatMessage[];
  tools?: Array<{ function?: { name?: string } }>;
}

export interface FakeModel {
  /** Base URL for `@ai-sdk/openai-compatible` (`…/v1`). */
  readonly baseURL: string;
  readonly requests: RecordedRequest[];
  /** Queues answers for the next non-title requests, in order. */
  enqueue(...replies: FakeReply[]): void;
  /** Answer given when the queue is empty. */
  setFallback(reply: FakeReply): void;
  /** Requests that were not title generation. */
  chatRequests(): RecordedRequest[];
  reset(): void;
  close(): Promise<void>;
}

/**
 * A stand-in for an OpenAI-compatible chat-completions server on loopback, so engine tests
 * never reach the internet. Tool calls are answered in two steps like a real model: first the
 * call, then (when the request carries the tool result) a text that quotes the result.
 */
export async function startFakeModel(): Promise<FakeModel> {
  const requests: RecordedRequest[] = [];
  const queue: FakeReply[] = [];
  const pendingToolFollowUps = new Map<string, (result: string) => string>();
  let fallback: FakeReply = { kind: 'text', text: 'ok' };
  let callCounter = 0;

  const server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(err), type: 'fake_failure' } }));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const body = (raw ? JSON.parse(raw) : {}) as ChatRequest;
    const path = req.url ?? '/';
    if (!path.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route ${path}` } }));
      return;
    }
    const messages = body.messages ?? [];
    const title = isTitleRequest(messages);
    const recorded: RecordedRequest = {
      path,
      body,
      userText: textOf([...messages].reverse().find((m) => m.role === 'user')?.content),
      tools: (body.tools ?? []).map((t) => t.function?.name ?? '').filter(Boolean),
      title,
    };
    requests.push(recorded);

    if (title) return sendText(res, body, { kind: 'text', text: 'Test title' });
    const last = messages.at(-1);
    if (last?.role === 'tool') {
      const follow = pendingToolFollowUps.get(last.tool_call_id ?? '');
      pendingToolFollowUps.delete(last.tool_call_id ?? '');
      const result = textOf(last.content);
      const text = follow ? follow(result) : `tool said: ${result}`;
      return sendText(res, body, { kind: 'text', text });
    }
    const reply = queue.shift() ?? fallback;
    if (reply.kind === 'error') {
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: {
            message: reply.message ?? 'fake model failure',
            type: reply.type ?? 'invalid_request_error',
          },
        }),
      );
      return;
    }
    if (reply.kind === 'tool') {
      const id = `call_${++callCounter}`;
      pendingToolFollowUps.set(id, reply.after ?? ((r) => `tool said: ${r}`));
      startStream(res);
      const call = {
        index: 0,
        id,
        type: 'function',
        function: { name: reply.tool, arguments: JSON.stringify(reply.args) },
      };
      writeChunk(res, body, { role: 'assistant', tool_calls: [call] }, null);
      writeChunk(res, body, {}, 'tool_calls');
      endStream(res);
      return;
    }
    return sendText(res, body, reply);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...replies) => void queue.push(...replies),
    setFallback: (reply) => void (fallback = reply),
    chatRequests: () => requests.filter((r) => !r.title),
    reset: () => {
      requests.length = 0;
      queue.length = 0;
      pendingToolFollowUps.clear();
      fallback = { kind: 'text', text: 'ok' };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function sendText(
  res: ServerResponse,
  body: ChatRequest,
  reply: Extract<FakeReply, { kind: 'text' }>,
): Promise<void> {
  if (body.stream === false) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'chatcmpl-fake',
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model ?? 'fake',
        choices: [
          { index: 0, message: { role: 'assistant', content: reply.text }, finish_reason: 'stop' },
        ],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      }),
    );
    return;
  }
  startStream(res);
  if (reply.reasoning)
    writeChunk(res, body, { role: 'assistant', reasoning_content: reply.reasoning }, null);
  const pieces = split(reply.text, reply.chunks ?? 1);
  for (const [i, piece] of pieces.entries()) {
    if (i > 0 && i === pieces.length - 1) await reply.beforeLast?.();
    writeChunk(res, body, { role: 'assistant', content: piece }, null);
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
  }
  writeChunk(res, body, {}, 'stop');
  endStream(res);
}

function startStream(res: ServerResponse): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
}

function writeChunk(
  res: ServerResponse,
  body: ChatRequest,
  delta: object,
  finish: string | null,
): void {
  const chunk = {
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model: body.model ?? 'fake',
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...(finish ? { usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } } : {}),
  };
  res.write(`data: ${JSON.stringify(chunk)}\n\n`);
}

function endStream(res: ServerResponse): void {
  res.write('data: [DONE]\n\n');
  res.end();
}

/** Splits `text` into `n` pieces of near-equal length (none empty unless the text is). */
export function split(text: string, n: number): string[] {
  const count = Math.max(1, Math.min(n, text.length || 1));
  const size = Math.ceil(text.length / count);
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces.length > 0 ? pieces : [''];
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((p: unknown) =>
        typeof p === 'object' && p && 'text' in p ? String((p as { text: unknown }).text) : '',
      )
      .join('');
  }
  return '';
}

// OpenCode's title agent asks for a short title of the conversation in its system prompt.
function isTitleRequest(messages: ChatMessage[]): boolean {
  const system = messages
    .filter((m) => m.role === 'system')
    .map((m) => textOf(m.content))
    .join('\n');
  return /title generator/i.test(system);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
