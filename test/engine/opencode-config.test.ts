import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { createEngineClient, type EngineClient } from '../../src/engine/client.js';
import { createEventHub, type ChatEvent, type EventHub } from '../../src/engine/event-hub.js';
import {
  BUILTIN_TOOLS,
  buildOpencodeConfig,
  defaultCliPath,
  STEWARD_MCP_NAME,
  stewardMcpEnv,
} from '../../src/engine/opencode-config.js';
import { lockdownEngineEnv } from '../../src/engine/engine-env.js';
import { startFakeModel, type FakeModel } from '../support/fake-model.js';
import { mockProvider, startTestEngine, type TestEngine } from '../support/opencode.js';

const log = pino({ level: 'silent' });
const root = path.resolve(import.meta.dirname, '../..');
const moduleUrl = (rel: string) => pathToFileURL(path.join(root, 'node_modules', rel)).href;

/** A one-tool stdio MCP server standing in for `steward mcp` until the real one is wired. */
const shoutServer = `
import { McpServer } from '${moduleUrl('@modelcontextprotocol/sdk/dist/esm/server/mcp.js')}';
import { StdioServerTransport } from '${moduleUrl('@modelcontextprotocol/sdk/dist/esm/server/stdio.js')}';
import { z } from '${moduleUrl('zod/index.js')}';
const server = new McpServer({ name: 'shout', version: '1.0.0' });
server.registerTool('shout', { description: 'Upper-cases a text', inputSchema: { text: z.string() } },
  async ({ text }) => ({ content: [{ type: 'text', text: 'SHOUTED:' + text.toUpperCase() + ':' + process.env.GREETING }] }));
await server.connect(new StdioServerTransport());
`;

describe('buildOpencodeConfig', () => {
  it('registers steward mcp, turns builtin tools off and keeps the lock-down keys', () => {
    const config = buildOpencodeConfig({
      extra: {
        model: 'mock/echo',
        provider: { mock: { npm: '@ai-sdk/openai-compatible' } },
        tools: { bash: true },
        share: 'auto',
        mcp: { other: { type: 'remote', url: 'http://127.0.0.1:1/mcp' } },
      },
      tools: { transport: 'stdio', env: { REDIS_URL: 'redis://127.0.0.1:1' } },
    });
    expect(config.model).toBe('mock/echo');
    expect(config.provider).toEqual({ mock: { npm: '@ai-sdk/openai-compatible' } });
    expect(config.autoupdate).toBe(false);
    expect(config.share).toBe('disabled');
    const tools = config.tools as Record<string, boolean>;
    for (const name of [
      'bash',
      'edit',
      'write',
      'read',
      'grep',
      'glob',
      'list',
      'patch',
      'webfetch',
      'websearch',
      'task',
    ]) {
      expect(tools[name]).toBe(false);
    }
    expect((config.permission as Record<string, string>).bash).toBe('deny');
    const mcp = config.mcp as Record<string, Record<string, unknown>>;
    expect(mcp.other).toBeDefined();
    expect(mcp[STEWARD_MCP_NAME]).toEqual({
      type: 'local',
      command: [process.execPath, defaultCliPath, 'mcp'],
      environment: { REDIS_URL: 'redis://127.0.0.1:1' },
      enabled: true,
      timeout: 10_000,
    });
    expect(defaultCliPath).toBe(path.join(root, 'dist/cli/main.js'));
  });

  it('points an engine in its own container at an API tool server, with the same lock-down', () => {
    const local = buildOpencodeConfig({
      extra: { model: 'mock/echo' },
      tools: { transport: 'stdio', env: {} },
    });
    const remote = buildOpencodeConfig({
      extra: { model: 'mock/echo' },
      tools: { transport: 'http', url: 'http://api:8080/mcp', token: 't'.repeat(32) },
    });
    expect(remote.mcp).toEqual({
      [STEWARD_MCP_NAME]: {
        type: 'remote',
        url: 'http://api:8080/mcp',
        headers: { authorization: `Bearer ${'t'.repeat(32)}` },
        oauth: false,
        enabled: true,
        timeout: 10_000,
      },
    });
    expect({ ...remote, mcp: null }).toEqual({ ...local, mcp: null });
  });

  it('hands steward mcp only what it needs', () => {
    const loaded = loadConfig({
      cwd: '/srv/steward',
      overrides: {
        'redis.prefix': 'p:',
        'secrets.key': 'k'.repeat(44),
        'admin.jwt.secret': 's'.repeat(40),
      },
    });
    const env = stewardMcpEnv(loaded, 'redis://10.0.0.1:6379');
    expect(env).toEqual({
      REDIS_URL: 'redis://10.0.0.1:6379',
      STEWARD_REDIS_PREFIX: 'p:',
      STEWARD_WORKSPACE: '/srv/steward/workspace',
      STEWARD_DATA_DIR: '/srv/steward/data',
      STEWARD_LOG_LEVEL: 'info',
      STEWARD_SECRETS_KEY: 'k'.repeat(44),
    });
    expect(JSON.stringify(env)).not.toContain('s'.repeat(40));
  });
});

describe('the generated configuration in a real engine', { timeout: 60_000 }, () => {
  let fake: FakeModel;
  let engine: TestEngine;
  let client: EngineClient;
  let hub: EventHub;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'steward-mcp-'));
    const script = path.join(dir, 'shout.mjs');
    writeFileSync(script, shoutServer);
    fake = await startFakeModel();
    const config = buildOpencodeConfig({
      extra: { provider: mockProvider(fake.baseURL), model: 'mock/echo', small_model: 'mock/echo' },
      tools: {
        transport: 'stdio',
        env: { GREETING: 'from-env' },
        command: [process.execPath, script],
      },
    });
    // What an AI could write into the workspace to get its shell back. Without the lock-down
    // variable opencode 1.18.33 merges these and offers bash, read, edit and write again.
    const reenable = JSON.stringify({
      tools: { bash: true, read: true },
      permission: { bash: 'allow' },
    });
    const agent = '---\ndescription: b\ntools:\n  bash: true\n  read: true\n---\nAnything.';
    engine = await startTestEngine({
      modelURL: fake.baseURL,
      config,
      env: { ...lockdownEngineEnv },
      files: {
        'opencode.json': reenable,
        '.opencode/opencode.json': reenable,
        '.opencode/agent/build.md': agent,
        '.opencode/agents/build.md': agent,
      },
    });
    client = createEngineClient({ url: engine.url, log, requestTimeoutMs: 10_000 });
    hub = createEventHub({ client, log, backoff: { initialMs: 50, maxMs: 500 } });
    await hub.whenConnected(20_000);
  });

  afterAll(async () => {
    await hub?.stop();
    await engine?.stop();
    await fake?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('offers the MCP tools and no builtin shell, file or web tool, whatever the workspace says', async () => {
    const session = await client.createSession({ title: 'tools' });
    fake.enqueue({ kind: 'text', text: 'fine' });
    expect(await client.prompt(session.id, 'which tools?')).toBe('fine');
    const offered = fake.chatRequests().at(-1)?.tools ?? [];
    expect(offered).toContain(`${STEWARD_MCP_NAME}_shout`);
    for (const name of BUILTIN_TOOLS) expect(offered).not.toContain(name);
    expect(offered.filter((t) => !t.startsWith(`${STEWARD_MCP_NAME}_`))).toEqual([]);
  });

  it('runs an MCP tool call and streams a reply that carries the tool result', async () => {
    fake.reset();
    const session = await client.createSession({ title: 'tool call' });
    fake.enqueue({
      kind: 'tool',
      tool: `${STEWARD_MCP_NAME}_shout`,
      args: { text: 'hello' },
      after: (result) => `The tool answered ${result}`,
    });
    const events = new Promise<ChatEvent[]>((resolve) => {
      const got: ChatEvent[] = [];
      const off = hub.subscribe(session.id, (e) => {
        got.push(e);
        if (e.type === 'done') {
          off();
          resolve(got);
        }
      });
    });
    await client.promptAsync(session.id, 'shout hello');
    const got = await events;
    const text = got.flatMap((e) => (e.type === 'text' ? [e.content] : [])).join('');
    expect(text).toBe('The tool answered SHOUTED:HELLO:from-env');
    expect(got.some((e) => e.type === 'error')).toBe(false);
    // Two model calls: the tool call, then the answer with the tool result in its messages.
    const calls = fake.chatRequests();
    expect(calls).toHaveLength(2);
    expect(JSON.stringify(calls[1]?.body.messages)).toContain('SHOUTED:HELLO:from-env');
  });
});
