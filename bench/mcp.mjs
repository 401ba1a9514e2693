// tools/call latency over stdio: Steward's workspace_read and script_run (trivial approved
// script, through Redis, BullMQ and Piscina) beside a bare SDK server with one echo tool.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { pct, sleep, startRedis } from './lib.mjs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const dist = new URL('../dist/', import.meta.url);
const { loadConfig } = await import(new URL('config/load.js', dist));
const { createLogger } = await import(new URL('log/logger.js', dist));
const { createContext } = await import(new URL('runtime/context.js', dist));
const { buildCore } = await import(new URL('cli/compose.js', dist));

const N = Number(process.env.BENCH_CALLS ?? 300);

const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-bench-mcp-'));
const redisServer = await startRedis(dir);
const redisUrl = redisServer.url;
writeFileSync(
  path.join(dir, 'steward.yaml'),
  'log:\n  level: error\nmcp:\n  rate_limit:\n    per_second: 1000000\n    burst: 2000000\n',
);
const env = {
  PATH: process.env.PATH,
  HOME: dir,
  REDIS_URL: redisUrl,
  STEWARD_CONFIG: path.join(dir, 'steward.yaml'),
  STEWARD_DATA_DIR: path.join(dir, 'data'),
  STEWARD_WORKSPACE: path.join(dir, 'workspace'),
};

const config = loadConfig({ env, cwd: dir });
const ctx = await createContext(config, createLogger('error'), redisUrl);
const services = await buildCore(ctx);
mkdirSync(config.paths.workspace, { recursive: true });
writeFileSync(path.join(config.paths.workspace, 'note.md'), 'x'.repeat(1024));
await services.scripts.create('trivial.star', 'def main():\n    return {"ok": True}\n', 'bench');
await services.scripts.approve('trivial.star', 'bench');

const worker = spawn(process.execPath, [new URL('cli/main.js', dist).pathname, 'worker'], {
  env,
  stdio: 'ignore',
});

async function measure(client, name, args) {
  for (let i = 0; i < 20; i++) await client.callTool({ name, arguments: args });
  const times = [];
  for (let i = 0; i < N; i++) {
    const t = performance.now();
    const res = await client.callTool({ name, arguments: args });
    times.push(performance.now() - t);
    if (res.isError) throw new Error(`${name}: ${res.content[0].text}`);
  }
  return times.sort((a, b) => a - b);
}

const steward = new Client({ name: 'bench', version: '1' });
await steward.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: [new URL('cli/main.js', dist).pathname, 'mcp'],
    env,
  }),
);
const bareFile = path.join(dir, 'bare-server.mjs');
writeFileSync(
  bareFile,
  `import { McpServer } from ${JSON.stringify(new URL('../node_modules/@modelcontextprotocol/sdk/dist/esm/server/mcp.js', import.meta.url).pathname)};
import { StdioServerTransport } from ${JSON.stringify(new URL('../node_modules/@modelcontextprotocol/sdk/dist/esm/server/stdio.js', import.meta.url).pathname)};
import { z } from ${JSON.stringify(new URL('../node_modules/zod/index.js', import.meta.url).pathname)};
const server = new McpServer({ name: 'bare', version: '1' });
server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
await server.connect(new StdioServerTransport());
`,
);
const bare = new Client({ name: 'bench', version: '1' });
await bare.connect(new StdioClientTransport({ command: process.execPath, args: [bareFile] }));

// Let the worker come up before measuring script runs.
for (let i = 0; i < 100; i++) {
  const res = await steward.callTool({ name: 'script_run', arguments: { name: 'trivial' } });
  if (!res.isError) break;
  await sleep(200);
}

const rows = [
  ['bare SDK echo (baseline)', await measure(bare, 'echo', { text: 'hi' })],
  ['workspace_read (1 KiB)', await measure(steward, 'workspace_read', { path: 'note.md' })],
  ['script_run (trivial, via queue)', await measure(steward, 'script_run', { name: 'trivial' })],
];
const base = pct(rows[0][1], 50);
console.log(`tools/call over stdio, ${N} calls each`);
console.log('| tool | p50 ms | p99 ms | p50 × baseline |');
console.log('|---|---:|---:|---:|');
for (const [name, t] of rows) {
  console.log(
    `| ${name} | ${pct(t, 50).toFixed(2)} | ${pct(t, 99).toFixed(2)} | ${(pct(t, 50) / base).toFixed(1)} |`,
  );
}

await steward.close();
await bare.close();
worker.kill('SIGTERM');
await sleep(500);
await ctx.close();
redisServer.stop();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
