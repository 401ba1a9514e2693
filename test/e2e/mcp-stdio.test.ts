import { mkdirSync, writeFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { buildCore, type Core } from '../../src/cli/compose.js';
import { createTestContext, type TestContext } from '../support/app.js';
import { cliPath, roleEnv, spawnRole, stopProcess } from '../support/processes.js';
import { testRedisUrl } from '../support/redis.js';

/** `steward mcp` as the engine runs it: a child process spoken to over stdio by the SDK client. */
describe('steward mcp over stdio', () => {
  let t: TestContext;
  let services: Core;
  let worker: ChildProcess;
  let client: Client;
  let env: Record<string, string>;

  const text = (result: any) => (result.content as Array<{ text: string }>)[0]?.text ?? '';

  beforeAll(async () => {
    t = await createTestContext({ 'scripts.allowlist': ['allowed'] }, 'mcp-e2e');
    services = await buildCore(t.ctx);
    const workspace = t.ctx.config.paths.workspace;
    mkdirSync(workspace, { recursive: true });
    writeFileSync(path.join(workspace, 'notes.txt'), 'hello from the workspace');
    mkdirSync(path.join(t.dir, 'outside'), { recursive: true });
    writeFileSync(path.join(t.dir, 'outside', 'secret.txt'), 'outside');
    symlinkSync(path.join(t.dir, 'outside'), path.join(workspace, 'escape'));

    await services.secrets.set('API_TOKEN', 'tok-5f1d9c2e8a7b');
    await services.scripts.create(
      'leaky.star',
      '# @secrets: API_TOKEN\ndef main():\n    return {"token": secrets.get("API_TOKEN")}\n',
      'admin',
    );
    await services.scripts.approve('leaky.star', 'admin');
    await services.scripts.create('waiting.star', 'result = 1\n', 'admin');
    await services.scripts.create('allowed.star', 'def main():\n    return 7\n', 'admin');

    // The child processes read the allowlist from a config file, as a deployment would. Plain
    // secret values let leaky.star return its value, for the tool server's redaction to catch.
    writeFileSync(
      path.join(t.dir, 'steward.yaml'),
      'scripts:\n  allowlist: [allowed]\n  secret_values: plain\n',
    );
    env = roleEnv(testRedisUrl(), t.prefix, t.dir, {
      STEWARD_CONFIG: path.join(t.dir, 'steward.yaml'),
    });
    worker = spawnRole('worker', env);
    client = new Client({ name: 'test', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [cliPath, 'mcp'],
        env,
        stderr: 'pipe',
      }),
    );
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    if (worker) await stopProcess(worker);
    await t?.close();
  });

  it('lists the configured tools with input schemas', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    for (const name of [
      'workspace_read',
      'workspace_write',
      'workspace_list',
      'memory_read',
      'memory_write',
      'web_fetch',
      'script_list',
      'script_run',
      'script_exec',
      'script_reload',
    ]) {
      expect(names).toContain(name);
    }
    // Not configured: no vault path, no GitHub token, no calendar feeds.
    expect(
      names.some((n) => n.startsWith('vault_') || n.startsWith('github_') || n === 'calendar_read'),
    ).toBe(false);
    const read = tools.find((tool) => tool.name === 'workspace_read');
    expect(read?.inputSchema).toMatchObject({
      type: 'object',
      required: ['path'],
      properties: { path: { type: 'string' } },
    });
    const run = tools.find((tool) => tool.name === 'script_run');
    expect(run?.inputSchema.properties).toMatchObject({
      name: { type: 'string' },
      args: { type: 'array' },
    });
  });

  it('reads workspace files and refuses traversal and symlink escapes', async () => {
    expect(
      text(await client.callTool({ name: 'workspace_read', arguments: { path: 'notes.txt' } })),
    ).toBe('hello from the workspace');
    for (const bad of [
      '../outside/secret.txt',
      'escape/secret.txt',
      '/etc/passwd',
      '%2e%2e/outside/secret.txt',
      'a\0b',
    ]) {
      const res = await client.callTool({ name: 'workspace_read', arguments: { path: bad } });
      expect(res.isError, bad).toBe(true);
    }
  });

  it('runs an approved script through the queue and redacts the secret it returns', async () => {
    const res = await client.callTool({ name: 'script_run', arguments: { name: 'leaky' } });
    expect(res.isError).toBeFalsy();
    expect(text(res)).toContain('[REDACTED:API_TOKEN]');
    expect(text(res)).not.toContain('tok-5f1d9c2e8a7b');
  });

  it('refuses a pending script, naming the approval it waits for', async () => {
    const res = await client.callTool({ name: 'script_run', arguments: { name: 'waiting' } });
    expect(res.isError).toBe(true);
    expect(text(res)).toMatch(/pending approval.*administrator must approve/);
  });

  it('runs an allowlisted script without approval', async () => {
    const res = await client.callTool({ name: 'script_run', arguments: { name: 'allowed' } });
    expect(res.isError, text(res)).toBeFalsy();
    expect(JSON.parse(text(res)).result).toEqual({ value: 7 });
  });

  it('stores script_exec code as pending and runs it once approved', async () => {
    const code = 'def main():\n    return {"n": 6 * 7}\n';
    const first = await client.callTool({ name: 'script_exec', arguments: { code } });
    expect(first.isError).toBe(true);
    const name = /"(exec-[0-9a-f]{12})"/.exec(text(first))?.[1];
    expect(name).toBeDefined();
    await services.scripts.approve(`${name}.star`, 'admin');
    const second = await client.callTool({ name: 'script_exec', arguments: { code } });
    expect(second.isError).toBeFalsy();
    expect(JSON.parse(text(second)).result).toEqual({ n: 42 });
  });
});

describe('steward mcp raw protocol errors', () => {
  let t: TestContext;
  let child: ChildProcess;
  const lines: string[] = [];
  const waiters: Array<() => void> = [];

  beforeAll(async () => {
    t = await createTestContext({}, 'mcp-raw');
    child = spawnRole('mcp', roleEnv(testRedisUrl(), t.prefix, t.dir));
    let buf = '';
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      buf += chunk;
      let i: number;
      while ((i = buf.indexOf('\n')) !== -1) {
        lines.push(buf.slice(0, i));
        buf = buf.slice(i + 1);
        waiters.shift()?.();
      }
    });
  });
  afterAll(async () => {
    child.stdin?.end();
    await stopProcess(child);
    await t.close();
  });

  const next = async () => {
    while (lines.length === 0) await new Promise<void>((r) => waiters.push(r));
    return JSON.parse(lines.shift() as string);
  };
  const send = (line: string) => child.stdin?.write(`${line}\n`);

  it('answers each malformed input with the spec code, and nothing else reaches stdout', async () => {
    send(
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}',
    );
    expect((await next()).result.serverInfo.name).toBe('steward');
    send('not json at all');
    expect(await next()).toMatchObject({ id: null, error: { code: -32700 } });
    send('{"id":2,"method":"ping"}');
    expect((await next()).error.code).toBe(-32600);
    send('{"jsonrpc":"2.0","id":3,"method":"no/such"}');
    expect(await next()).toMatchObject({ id: 3, error: { code: -32601 } });
    send('{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{}}');
    expect(await next()).toMatchObject({ id: 4, error: { code: -32602 } });
    send(
      '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"missing_tool","arguments":{}}}',
    );
    expect(await next()).toMatchObject({ id: 5, error: { code: -32602 } });
    send(
      '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"workspace_read","arguments":{"path":7}}}',
    );
    expect(await next()).toMatchObject({ id: 6, error: { code: -32602 } });
    send('{"jsonrpc":"2.0","id":7,"method":"ping"}');
    expect(await next()).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
    expect(lines).toEqual([]);
  });
});
